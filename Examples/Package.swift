// swift-tools-version: 6.1
// The product built on Appex (issue 13): ContactsExplorer, its widgets and extensions. A sibling
// package, like Benchmarks/, so the library's own build stays lean; it depends on Appex by path.
// Examples/README.md says which seed each target comes from.
import PackageDescription

import struct Foundation.URL

// A path dependency's identity is its folder's name, which depends on where the repository was
// cloned: read it instead of assuming it.
let appexFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AppexExamples",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ContactsKit", targets: ["ContactsKit"]),
        .library(name: "ContactsTranslation", targets: ["ContactsTranslation"]),
        // For Benchmarks/ (the product's figures): the app and its widget, built for them.
        .executable(name: "ContactsExplorer", targets: ["ContactsExplorer"]),
        .executable(name: "RecentContacts", targets: ["RecentContacts"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // What ContactsExplorer and its RecentContacts widget share: the contacts store in the
        // app group, the contacts API client and the incremental sync.
        .target(
            name: "ContactsKit",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift
        ),
        // The contract of ContactsExplorer's translate point (seed 001), which the app publishes for
        // extension developers: the distributed-actor interface and the session messages.
        .target(
            name: "ContactsTranslation",
            dependencies: [.product(name: "AppexIPC", package: appexFolder)],
            swiftSettings: strictSwift
        ),
        // The host app (seed 000's MobileSyncExplorer): login, sync, browse; assembled as
        // ContactsExplorer.app with `appex bundle`.
        .executableTarget(
            name: "ContactsExplorer",
            dependencies: [
                "ContactsKit", "ContactsTranslation",
                .product(name: "AppexAuth", package: appexFolder),
                .product(name: "AppexAuthLogin", package: appexFolder),
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexSecureStore", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
                .product(name: "AppexWidgetKit", package: appexFolder),
                .product(name: "AppexWidgetHost", package: appexFolder),
                .product(name: "AppexWindow", package: appexFolder),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // ContactsExplorer's widget (seed 000's RecentContacts Today extension), shown by the
        // system's widget host (`appex widgets`), inside ContactsExplorer.app/Extensions/.
        .executableTarget(
            name: "RecentContacts",
            dependencies: [
                "ContactsKit",
                .product(name: "AppexWidgetKit", package: appexFolder),
                .product(name: "AppexAuth", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // ContactsExplorer's own translator (seed 001), inside ContactsExplorer.app/Extensions/: both
        // of the seed's forms.
        .executableTarget(
            name: "Translate",
            dependencies: [
                "ContactsTranslation", .product(name: "AppexExtension", package: appexFolder),
                .product(name: "AppexWidgetKit", package: appexFolder),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Another team's translator for the same point, on APPEX_EXTENSIONS_PATH (seeds 001, 004).
        .executableTarget(
            name: "LinguaTranslate",
            dependencies: [
                "ContactsTranslation", .product(name: "AppexExtension", package: appexFolder),
                .product(name: "AppexWidgetKit", package: appexFolder),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Another team's widget, on APPEX_EXTENSIONS_PATH (seed 004).
        .executableTarget(
            name: "LinguaWidgets",
            dependencies: [.product(name: "AppexWidgetKit", package: appexFolder)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "ContactsKitTests",
            dependencies: [
                "ContactsKit", "ContactsExplorer", "RecentContacts", "Translate", "LinguaTranslate", "LinguaWidgets",
                "ContactsTranslation",
                .product(name: "AppexWidgetHost", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
            ],
            swiftSettings: strictSwift
        ),
    ]
)
