// swift-tools-version: 6.1
// Appex's libFuzzer targets: a sibling package, so the main package's build never pays for the sanitizers. Run them
// with `Scripts/fuzz.sh TARGET SECONDS` from the repository root; Fuzz/README.md says what each one exercises.
import PackageDescription
import struct Foundation.URL

// A path dependency's identity is its folder's name, which depends on where the repository was cloned: read it
// instead of assuming it.
let appexFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A fuzz target: an executable named as `Scripts/fuzz.sh` calls it, in `Sources/NAME`.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, swiftSettings: strictSwift)
}

let package = Package(
    name: "AppexFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: strictSwift),
        fuzzTarget("plist-binary", [.product(name: "AppexCore", package: appexFolder)]),
        fuzzTarget("plist-writer", [.product(name: "AppexCore", package: appexFolder)]),
        fuzzTarget("plist-xml", [.product(name: "AppexCore", package: appexFolder)]),
        fuzzTarget("bundle-load", [.product(name: "AppexCore", package: appexFolder)]),
        fuzzTarget("compact-decoder", [.product(name: "AppexCoding", package: appexFolder)]),
        fuzzTarget("view-tree", [.product(name: "AppexWidgetKit", package: appexFolder)]),
        fuzzTarget("frame-decoder", [.product(name: "AppexIPC", package: appexFolder)]),
        fuzzTarget("handshake", [.product(name: "AppexIPC", package: appexFolder)]),
        fuzzTarget(
            "keychain-broker",
            [.product(name: "AppexStore", package: appexFolder), .product(name: "AppexCore", package: appexFolder)]
        ),
        fuzzTarget("token-response", [.product(name: "AppexAuth", package: appexFolder)]),
    ]
)
