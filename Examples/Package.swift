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
        .library(name: "ContactsKit", targets: ["ContactsKit"])
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // What ContactsExplorer and its RecentContacts widget share: the contacts store in the
        // app group, the contacts API client and the incremental sync.
        .target(
            name: "ContactsKit",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "ContactsKitTests",
            dependencies: ["ContactsKit"],
            swiftSettings: strictSwift
        ),
    ]
)
