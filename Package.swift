// swift-tools-version: 6.1
import PackageDescription

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Appex",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AppexCore", targets: ["AppexCore"]),
        .library(name: "AppexCoding", targets: ["AppexCoding"]),
        .library(name: "AppexIPC", targets: ["AppexIPC"]),
        .library(name: "AppexHost", targets: ["AppexHost"]),
        .library(name: "AppexExtension", targets: ["AppexExtension"]),
        .library(name: "AppexStore", targets: ["AppexStore"]),
        .library(name: "AppexAuth", targets: ["AppexAuth"]),
        .library(name: "AppexAuthLogin", targets: ["AppexAuthLogin"]),
        .library(name: "AppexTesting", targets: ["AppexTesting"]),
        .executable(name: "appex", targets: ["AppexCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "AppexCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift
        ),
        .target(name: "CAppexSystem"),
        .target(
            name: "AppexSQLite",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexStore",
            dependencies: ["AppexCore", "AppexSQLite", "CAppexSystem", .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexAuth",
            dependencies: ["AppexCore", "AppexStore"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexAuthLogin",
            dependencies: ["AppexCore", "AppexStore", "AppexAuth", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift
        ),
        // The compact Codable coder of distributed-actor calls. Every extension links it: no dependencies,
        // FoundationEssentials only on Linux.
        .target(name: "AppexCoding", swiftSettings: strictSwift),
        .target(
            name: "AppexIPC",
            dependencies: ["AppexCore", "AppexCoding", "CAppexSystem"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexExtension",
            dependencies: ["AppexCore", "AppexIPC", "CAppexSystem"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexFixtureInterfaces",
            dependencies: ["AppexIPC"],
            path: "Tests/Fixtures/AppexFixtureInterfaces",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureEcho",
            dependencies: ["AppexExtension", "AppexFixtureInterfaces", "AppexStore", "AppexAuth"],
            path: "Tests/Fixtures/AppexFixtureEcho",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureTranslate",
            dependencies: ["AppexExtension", "AppexFixtureInterfaces"],
            path: "Tests/Fixtures/AppexFixtureTranslate",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureStore",
            dependencies: ["AppexCore", "AppexStore"],
            path: "Tests/Fixtures/AppexFixtureStore",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureAuth",
            dependencies: ["AppexCore", "AppexStore", "AppexAuth"],
            path: "Tests/Fixtures/AppexFixtureAuth",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureHost",
            dependencies: ["AppexCore", "AppexHost", "AppexFixtureInterfaces"],
            path: "Tests/Fixtures/AppexFixtureHost",
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexHost",
            dependencies: [
                "AppexCore",
                "AppexSQLite",
                "AppexIPC",
                "CAppexSystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexTesting",
            dependencies: ["AppexCore", "AppexHost"],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexCLI",
            dependencies: [
                "AppexCore",
                "AppexHost",
                "AppexStore",
                "AppexAuth",
                "AppexAuthLogin",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "AppexTests",
            dependencies: ["AppexCore", "AppexCoding", "AppexIPC", "AppexHost", "AppexTesting", "AppexCLI", "AppexStore", "AppexSQLite", "AppexAuth", "AppexAuthLogin", "AppexFixtureStore", "AppexFixtureAuth", "AppexFixtureEcho", "AppexFixtureTranslate", "AppexFixtureHost", "AppexFixtureInterfaces"],
            exclude: ["Fixtures"],
            swiftSettings: strictSwift
        ),
    ]
)
