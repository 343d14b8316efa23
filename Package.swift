// swift-tools-version: 6.1
import Glibc
import PackageDescription

import class Foundation.FileManager

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The documents' code samples (README.md, Examples/README.md, docs/*.md, the DocC articles), each an executable target named
// `Sample` and its folder under Tests/Samples/ (written by Scripts/samples.sh: the source, and
// `products`, the products it depends on), with a new user's settings. Compiled in this graph, not
// in packages of their own that compiled Appex again; ReadmeSampleTests checks each folder is its
// document's block and what each extension's sample links.
let samplesFolder = Context.packageDirectory + "/Tests/Samples"
let samples: [Target] = ((try? FileManager.default.contentsOfDirectory(atPath: samplesFolder)) ?? []).sorted().map {
    name in
    let products = (try? String(contentsOfFile: samplesFolder + "/" + name + "/products", encoding: .utf8)) ?? ""
    return .executableTarget(
        name: "Sample" + name,
        dependencies: products.split(separator: "\n").map { .target(name: String($0)) },
        path: "Tests/Samples/" + name,
        exclude: ["products"],
        swiftSettings: [.swiftLanguageMode(.v6)]
    )
}

let package = Package(
    name: "Appex",
    products: [
        .library(name: "AppexCore", targets: ["AppexCore"]),
        .library(name: "AppexBuild", targets: ["AppexBuild"]),
        .library(name: "AppexCoding", targets: ["AppexCoding"]),
        .library(name: "AppexIPC", targets: ["AppexIPC"]),
        .library(name: "AppexHost", targets: ["AppexHost"]),
        .library(name: "AppexExtension", targets: ["AppexExtension"]),
        .library(name: "AppexStore", targets: ["AppexStore"]),
        .library(name: "AppexAuth", targets: ["AppexAuth"]),
        .library(name: "AppexAuthLogin", targets: ["AppexAuthLogin"]),
        .library(name: "AppexSecureStore", targets: ["AppexSecureStore"]),
        .library(name: "AppexSalesforce", targets: ["AppexSalesforce"]),
        .library(name: "AppexCurity", targets: ["AppexCurity"]),
        .library(name: "AppexSAP", targets: ["AppexSAP"]),
        .library(name: "AppexTesting", targets: ["AppexTesting"]),
        .library(name: "AppexWidgetKit", targets: ["AppexWidgetKit"]),
        .library(name: "AppexWidgetHost", targets: ["AppexWidgetHost"]),
        .library(name: "AppexWindow", targets: ["AppexWindow"]),
        .executable(name: "appex", targets: ["appex"]),
        // `appex bundle` alone: the tool the appex-bundle plugin builds and runs (docs/decisions/0119).
        .executable(name: "appex-bundler", targets: ["appex-bundler"]),
        .plugin(name: "AppexBundlePlugin", targets: ["AppexBundlePlugin"]),
        // The product (Examples/), for Benchmarks/ (the product's figures): its store, the app
        // and its widget.
        .library(name: "ContactsKit", targets: ["ContactsKit"]),
        .executable(name: "ContactsExplorer", targets: ["ContactsExplorer"]),
        .executable(name: "RecentContacts", targets: ["RecentContacts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Spans on the paths worth seeing from outside (AppexStore's auxiliary data requests): the
        // server-side Swift convention, a no-op until a host bootstraps a tracer. Already in the
        // graph (Hummingbird depends on it); its Tracing module alone is small.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Each extension's figures (launches, crashes, calls, bytes…) through the server-side Swift
        // convention, a no-op until a host bootstraps a backend (docs/decisions/0164). Already in
        // the graph (Hummingbird depends on it); CoreMetrics alone is one small module.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // The window (AppexWindow only): an HTTP server on the loopback interface, stopped cleanly on
        // SIGINT and SIGTERM. A host that serves no page links none of it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Documentation only (`swift package generate-documentation`, Scripts/docs.sh): a plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // `swift package appex-bundle`: a product's bundle, its Info.plist or extension points
        // read from its sources at build time (runs `appex bundle`).
        .plugin(
            name: "AppexBundlePlugin",
            capability: .command(
                intent: .custom(
                    verb: "appex-bundle",
                    description:
                        "Build a product in release mode (static Swift runtime) and make its signed .appex or .app from its sources' binding or @Definition points"
                )
            )
        ),
        // The words every module speaks (AppexError and its common codes, extension points, bundle
        // problems, peer credentials, where state lives): no dependencies, no system call.
        .target(name: "AppexVocabulary", swiftSettings: strictSwift),
        // The only module that touches the OS: syscalls, descriptors, locks, threads, spawn. Its API
        // is `package`: nothing of it is public.
        .target(
            name: "AppexSystem",
            dependencies: [
                "AppexVocabulary", "CAppexSystem", .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift,
            // MainThreadLoop calls libdispatch's main-queue hooks for run loops.
            linkerSettings: [.linkedLibrary("dispatch", .when(platforms: [.linux]))]
        ),
        .target(name: "CAppexSystem"),
        .target(
            name: "AppexCore",
            dependencies: ["AppexVocabulary", "AppexSystem", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift
        ),
        // What only builds need: package templates, points declared in sources, making and signing
        // bundles. The CLI, the plugin (through it) and AppexTesting use it; a host never links it.
        .target(
            name: "AppexBuild",
            dependencies: [
                "AppexCore", "AppexVocabulary", "AppexSystem", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexSQLite",
            dependencies: [
                "AppexVocabulary", "AppexSystem", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexStore",
            dependencies: [
                "AppexCore", "AppexSQLite", "AppexVocabulary", "AppexSystem", "AppexCoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSwift
        ),
        // The vendors' facades: their names mapped onto Appex's types, nothing more.
        .target(
            name: "AppexSalesforce",
            dependencies: ["AppexStore"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexCurity",
            dependencies: ["AppexAuth", "AppexStore"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexSAP",
            dependencies: ["AppexAuth", "AppexAuthLogin", "AppexCore", "AppexSecureStore", "AppexStore"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexAuth",
            dependencies: ["AppexCore", "AppexStore", "AppexVocabulary", "AppexSystem"],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexAuthLogin",
            dependencies: [
                "AppexCore", "AppexStore", "AppexAuth", "AppexVocabulary", "AppexSystem",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift
        ),
        // The passcode-protected store and its paired access keys (seed 002); the data requests that
        // reach it are AppexStore's.
        // _CryptoExtras for scrypt (a memory-hard passcode KDF).
        .target(
            name: "AppexSecureStore",
            dependencies: [
                "AppexCore", "AppexSQLite", "AppexStore", "AppexVocabulary", "AppexSystem", "AppexAuth",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift
        ),
        // The compact Codable coder of distributed-actor calls. Every extension links it: no dependencies,
        // FoundationEssentials only on Linux.
        .target(name: "AppexCoding", swiftSettings: strictSwift),
        .target(
            name: "AppexIPC",
            dependencies: [
                "AppexCoding", "AppexVocabulary", "AppexSystem",
                .product(name: "SystemPackage", package: "swift-system"),
                // W3C trace context across the boundary (docs/protocol.md 4.1): the API only;
                // a host or extension that traces bootstraps its own tracer.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexExtension",
            dependencies: [
                "AppexIPC", "AppexVocabulary", "AppexSystem", .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSwift
        ),
        // WidgetKit's shapes for a widget extension; links AppexExtension, never AppexHost.
        .target(
            name: "AppexWidgetKit",
            dependencies: ["AppexExtension", "AppexCoding", "AppexVocabulary", "AppexSystem", "ActivityKit"],
            swiftSettings: strictSwift
        ),
        // Live Activities, named as Apple's module so that `#if canImport(ActivityKit)` holds;
        // `import AppexWidgetKit` brings it.
        .target(
            name: "ActivityKit",
            dependencies: ["AppexVocabulary", "AppexSystem"],
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
            dependencies: ["AppexExtension", "AppexIPC", "AppexFixtureInterfaces"],
            path: "Tests/Fixtures/AppexFixtureEcho",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureHostile",
            dependencies: [
                "AppexExtension", "AppexFixtureInterfaces", "AppexStore", "CAppexFixtureHostile",
            ],
            path: "Tests/Fixtures/AppexFixtureHostile",
            swiftSettings: strictSwift
        ),
        .target(name: "CAppexFixtureHostile", path: "Tests/Fixtures/CAppexFixtureHostile"),
        .executableTarget(
            name: "AppexFixtureShared",
            dependencies: [
                "AppexExtension", "AppexFixtureInterfaces", "AppexStore", "AppexSalesforce", "AppexAuth",
            ],
            path: "Tests/Fixtures/AppexFixtureShared",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureTranslate",
            dependencies: ["AppexExtension", "AppexIPC", "AppexFixtureInterfaces"],
            path: "Tests/Fixtures/AppexFixtureTranslate",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureScene",
            dependencies: ["AppexExtension", "AppexWidgetKit"],
            path: "Tests/Fixtures/AppexFixtureScene",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureWidget",
            dependencies: ["AppexWidgetKit"],
            path: "Tests/Fixtures/AppexFixtureWidget",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureSampleWidget",
            dependencies: ["AppexWidgetKit"],
            path: "Tests/Fixtures/AppexFixtureSampleWidget",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "AppexFixtureConfiguredWidget",
            dependencies: ["AppexWidgetKit"],
            path: "Tests/Fixtures/AppexFixtureConfiguredWidget",
            swiftSettings: strictSwift
        ),
        // The same sources in Swift 5 mode, as real widget projects (Xcode's template) build.
        .executableTarget(
            name: "AppexFixtureConfiguredWidgetSwift5",
            dependencies: ["AppexWidgetKit"],
            path: "Tests/Fixtures/AppexFixtureConfiguredWidgetSwift5",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "AppexFixtureWidgetApp",
            dependencies: ["AppexWidgetKit"],
            path: "Tests/Fixtures/AppexFixtureWidgetApp",
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
            name: "AppexFixtureSecureStore",
            dependencies: ["AppexCore", "AppexStore", "AppexSecureStore"],
            path: "Tests/Fixtures/AppexFixtureSecureStore",
            swiftSettings: strictSwift
        ),
        // Seed 004's host: points defined in code, a monitor with no host path, Observations.
        .executableTarget(
            name: "AppexFixtureSeedHost",
            dependencies: ["AppexHost"],
            path: "Tests/Fixtures/AppexFixtureSeedHost",
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
                "AppexStore",
                "AppexSQLite",
                "AppexIPC",
                "AppexVocabulary", "AppexSystem",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSwift
        ),
        // The system's widget host: finds widgets in apps, schedules timelines, renders them.
        .target(
            name: "AppexWidgetHost",
            dependencies: [
                "AppexWidgetKit", "ActivityKit", "AppexHost", "AppexCore", "AppexSQLite", "AppexVocabulary",
                "AppexSystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "AppexTesting",
            dependencies: ["AppexBuild", "AppexCore"],
            swiftSettings: strictSwift
        ),
        // What `appex` and `appex-bundler` share: `appex bundle` and the way every command reports
        // a failure. Package-level: no public API.
        .target(
            name: "AppexCommandCore",
            dependencies: [
                "AppexBuild", "AppexCore", "AppexVocabulary",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift
        ),
        // `appex bundle` alone, for the appex-bundle plugin: a new package's first bundle builds
        // what making and signing needs, not the stores, hosts and web server of `appex`.
        .executableTarget(
            name: "appex-bundler",
            dependencies: ["AppexCommandCore"],
            path: "Sources/AppexBundler",
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "appex",
            dependencies: [
                "AppexCommandCore",
                "AppexBuild",
                "AppexCore",
                "AppexHost",
                "AppexStore",
                "AppexAuth",
                "AppexSecureStore",
                "AppexAuthLogin",
                "AppexVocabulary", "AppexSystem",
                "AppexWidgetHost",
                "AppexWindow",
                "AppexWidgetKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/AppexCLI",
            swiftSettings: strictSwift
        ),
        // The seeds' own code (../shared/seeds), as the documents print it, one target per seed:
        // imports changed, the lines of Examples/README.md's table changed, the app's own pieces
        // in App.swift. Default Swift 6 settings, as a new user's package has.
        .executableTarget(
            name: "Seed000",
            dependencies: ["AppexExtension", "AppexHost", "AppexSalesforce"],
            path: "Tests/Seeds/Seed000",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "Seed001",
            dependencies: ["AppexExtension"],
            path: "Tests/Seeds/Seed001",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "Seed002",
            dependencies: [
                "AppexSAP", "AppexExtension", "AppexSecureStore", "AppexStore", "AppexAuth", "AppexAuthLogin",
            ],
            path: "Tests/Seeds/Seed002",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "Seed003",
            dependencies: ["AppexCurity", "AppexExtension", "AppexStore"],
            path: "Tests/Seeds/Seed003",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "Seed004",
            dependencies: ["AppexHost"],
            path: "Tests/Seeds/Seed004",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Local web pages that show and change Appex's state (issue 27): Hummingbird on 127.0.0.1,
        // a one-time login, Host, CSRF and Origin checks, a strict CSP, server-sent events.
        .target(
            name: "AppexWindow",
            dependencies: [
                "AppexVocabulary", "AppexCore", "AppexHost", "AppexWidgetHost", "AppexWidgetKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        // The product built on Appex (Examples/, issue 13): ContactsExplorer, its widgets and
        // extensions, in this package's graph so that Appex is compiled once for the library, the
        // product, the demo and their tests (a sibling package compiled it a second time: 678 s
        // of a cold demo's 1,273; issue 43). Examples/README.md says which seed each comes from.
        // The product's own targets use a new user's settings (Swift 6 mode and nothing else).
        //
        // What ContactsExplorer and its RecentContacts widget share: the contacts store in the
        // app group, the contacts API client and the incremental sync.
        .target(
            name: "ContactsKit",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            path: "Examples/Sources/ContactsKit",
            swiftSettings: strictSwift
        ),
        // The contract of ContactsExplorer's translate point (seed 001), which the app publishes for
        // extension developers: the distributed-actor interface and the session messages.
        .target(
            name: "ContactsTranslation",
            dependencies: ["AppexIPC"],
            path: "Examples/Sources/ContactsTranslation",
            swiftSettings: strictSwift
        ),
        // The host app (seed 000's MobileSyncExplorer): login, sync, browse; assembled as
        // ContactsExplorer.app with `appex bundle`.
        .executableTarget(
            name: "ContactsExplorer",
            dependencies: [
                "ContactsKit", "ContactsTranslation", "AppexAuth", "AppexAuthLogin", "AppexCore", "AppexHost",
                "AppexSecureStore", "AppexStore", "AppexWidgetKit", "AppexWidgetHost", "AppexWindow",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Sources/ContactsExplorer",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // ContactsExplorer's widget (seed 000's RecentContacts Today extension), shown by the
        // system's widget host (`appex widgets`), inside ContactsExplorer.app/Extensions/.
        .executableTarget(
            name: "RecentContacts",
            dependencies: ["ContactsKit", "AppexWidgetKit", "AppexCore", "AppexAuth", "AppexStore"],
            path: "Examples/Sources/RecentContacts",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // ContactsExplorer's own translator (seed 001), inside ContactsExplorer.app/Extensions/: both
        // of the seed's forms.
        .executableTarget(
            name: "Translate",
            dependencies: ["ContactsTranslation", "AppexExtension", "AppexWidgetKit"],
            path: "Examples/Sources/Translate",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Another team's translator for the same point, on APPEX_EXTENSIONS_PATH (seeds 001, 004).
        .executableTarget(
            name: "LinguaTranslate",
            dependencies: ["ContactsTranslation", "AppexExtension", "AppexWidgetKit"],
            path: "Examples/Sources/LinguaTranslate",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Another team's widget, on APPEX_EXTENSIONS_PATH (seed 004).
        .executableTarget(
            name: "LinguaWidgets",
            dependencies: ["AppexWidgetKit"],
            path: "Examples/Sources/LinguaWidgets",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The product's tests (the `product` tier, docs/ARCHITECTURE.md "Tests").
        .testTarget(
            name: "ContactsKitTests",
            dependencies: [
                "ContactsKit", "ContactsExplorer", "RecentContacts", "Translate", "LinguaTranslate", "LinguaWidgets",
                "ContactsTranslation", "AppexWidgetHost", "AppexHost", "AppexTesting", "AppexCore", "AppexStore",
                "AppexTestTiers", "appex", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Tests/ContactsKitTests",
            swiftSettings: strictSwift
        ),
        // The test tiers (Tier's tags and the .timed trait every suite carries): shared by the
        // library's tests and the product's.
        .target(name: "AppexTestTiers", path: "Tests/AppexTestTiers", swiftSettings: strictSwift),
        .testTarget(
            name: "AppexTests",
            dependencies: [
                "AppexBuild", "AppexCore", "AppexCoding", "AppexIPC", "AppexHost", "AppexSystem", "AppexVocabulary",
                "AppexExtension", "AppexTesting", "AppexTestTiers", "AppexCommandCore",
                "appex",
                "AppexStore", "AppexSalesforce", "AppexSAP", "AppexSQLite", "AppexAuth", "AppexAuthLogin",
                "AppexFixtureStore",
                "AppexFixtureAuth",
                "AppexFixtureEcho", "AppexFixtureHostile", "AppexFixtureShared", "AppexFixtureTranslate",
                "AppexFixtureHost", "AppexFixtureSeedHost", "Seed000", "Seed001", "Seed002", "Seed003", "Seed004",
                "AppexFixtureInterfaces", "AppexWidgetKit", "AppexWidgetHost", "AppexWindow", "AppexFixtureWidget",
                "AppexFixtureScene",
                "AppexFixtureWidgetApp", "AppexSecureStore", "AppexFixtureSecureStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSwift
        ),
    ] + samples
)

/// The benchmarks (Benchmarks/Benchmarks, one executable per group, package-benchmark's plugin
/// finds them by their folder) and what they launch or link (Benchmarks/Fixtures, Benchmarks/Sources).
func benchmarkTargets() -> [Target] {
    // The benchmark extensions are laid out in the order their start touches the Swift runtime,
    // libdispatch, the C library and Appex's extension runtime (Linker/extension-start.order, ld.lld):
    // the start's code and data sit in few 64 KB windows (docs/decisions/0168-extension-start-layout.md;
    // the appex-bundle plugin links an extension product so too).
    let startLayout = [
        "-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linker/extension-start.order",
        "-Xlinker", "--no-warn-symbol-ordering",
    ]
    let foundationArchives: [LinkerSetting] = [
        .linkedLibrary("CoreFoundation"), .linkedLibrary("_FoundationICU"), .linkedLibrary("_FoundationCShims"),
        .linkedLibrary("_FoundationCollections"), .linkedLibrary("stdc++"),
    ]
    // As docs/decisions/0168 advises for extensions, and as the appex-bundle plugin links a product:
    // the Swift runtime, Foundation and the C++ runtime linked in (Linker/static-cxx), nothing
    // exported to the dynamic loader, so a launch does not spend milliseconds in it.
    let staticRuntimes = [
        "-static-stdlib", "-L", "\(Context.packageDirectory)/Linker/static-cxx", "-Xclang-linker", "-static-libgcc",
        "-Xlinker", "--no-export-dynamic",
    ]
    // Relative relocations packed (DT_RELR), as the plugin links where the C library reads them
    // (glibc 2.36): the benchmark widget's 1.9 MB of relocations become 15 KB (decision 0168).
    var name = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
    _ = confstr(Int32(_CS_GNU_LIBC_VERSION), &name, name.count)
    let version = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let libc = version.dropFirst(6).split(separator: ".").compactMap { Int($0) }
    let unpacksRelocations = libc.count >= 2 && (libc[0], libc[1]) >= (2, 36)
    let packedRelocations = unpacksRelocations ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []
    let staticallyLinked: [LinkerSetting] =
        [.unsafeFlags(staticRuntimes + packedRelocations + startLayout)] + foundationArchives
    // Linked fully statically (docs/decisions/0168): no dynamic loader at all, and an extension main
    // that never unwinds (MainThreadLoop), so nothing sorts the unwind tables at start. Only for an
    // extension that links no FoundationNetworking (libcurl has no static archive here).
    let fullyStatic: [LinkerSetting] = [.unsafeFlags(["-static-executable"] + startLayout)] + foundationArchives
    let benchmark = Target.Dependency.product(name: "Benchmark", package: "benchmark")
    let tracing = Target.Dependency.product(name: "Tracing", package: "swift-distributed-tracing")
    let settings: [SwiftSetting] = [.swiftLanguageMode(.v6)]
    /// A group of benchmarks: Benchmarks/Benchmarks/NAME, run by package-benchmark's plugin.
    func group(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: name,
            dependencies: dependencies + [benchmark, "BenchSmoke", "AppexCore", "AppexTesting"],
            path: "Benchmarks/Benchmarks/\(name)",
            swiftSettings: settings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    }
    /// A program a benchmark launches: Benchmarks/Fixtures/NAME.
    func fixture(
        _ name: String,
        _ dependencies: [Target.Dependency],
        linkerSettings: [LinkerSetting] = []
    )
        -> Target
    {
        .executableTarget(
            name: name,
            dependencies: dependencies,
            path: "Benchmarks/Fixtures/\(name)",
            swiftSettings: settings,
            linkerSettings: linkerSettings
        )
    }
    return [
        .target(name: "CPingPong", path: "Benchmarks/Sources/CPingPong"),
        .target(
            name: "BenchSmoke",
            dependencies: [benchmark],
            path: "Benchmarks/Sources/BenchSmoke",
            swiftSettings: settings
        ),
        .target(
            name: "BenchInterfaces",
            dependencies: ["AppexIPC", tracing],
            path: "Benchmarks/Sources/BenchInterfaces",
            swiftSettings: settings
        ),
        // The bare-spawn baselines' children (Fixtures/FirstByte, Fixtures/BareEcho), compiled
        // at run time as libc-only programs: SwiftPM would link the Swift runtime into them.
        .target(name: "BenchChildren", path: "Benchmarks/Sources/BenchChildren", swiftSettings: settings),
        .target(
            name: "BenchWidgetViews",
            dependencies: ["AppexWidgetKit"],
            path: "Benchmarks/Sources/BenchWidgetViews",
            swiftSettings: settings
        ),
        // The raw SQLite baselines call the sqlite3 C API through GRDB's system-library module,
        // the same SQLite the library links.
        .target(
            name: "RawSQLite",
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "Benchmarks/Sources/RawSQLite",
            swiftSettings: settings
        ),
        // An extension needs AppexExtension alone: no swift-crypto, GRDB or bundle code.
        fixture("BenchExtension", ["BenchInterfaces", "AppexExtension"], linkerSettings: fullyStatic),
        // keychain.read.brokered's extension: sandboxed, its keychain goes through the broker.
        fixture("BenchKeychainExtension", ["AppexExtension", "AppexStore"]),
        // A widget extension needs AppexWidgetKit alone; linked as BenchExtension is.
        fixture("BenchWidget", ["BenchWidgetViews", "AppexWidgetKit"], linkerSettings: staticallyLinked),
        fixture("BenchTickerWidget", ["AppexWidgetKit"], linkerSettings: staticallyLinked),
        fixture("BenchWidgetHostRSS", ["AppexCore", "AppexWidgetHost"]),
        fixture("DefaultsObserver", ["RawSQLite", "AppexCore", "AppexStore"]),
        group(
            "IPCBenchmarks",
            ["CPingPong", "BenchExtension", "BenchChildren", "BenchInterfaces", "AppexIPC", tracing, "AppexHost"]
        ),
        group(
            "WidgetBenchmarks",
            [
                "BenchWidget", "BenchWidgetHostRSS", "BenchWidgetViews", "CPingPong", "BenchChildren",
                "AppexWidgetKit", "AppexWidgetHost", "AppexBuild",
            ]
        ),
        group(
            "WindowBenchmarks",
            ["BenchWidget", "BenchTickerWidget", "AppexHost", "AppexWidgetHost", "AppexWindow"]
        ),
        // The product's figures: ContactsExplorer, its store and its widget.
        group(
            "ProductBenchmarks",
            [
                "BenchWidget", "ContactsKit", "ContactsExplorer", "RecentContacts", "AppexAuth", "AppexAuthLogin",
                "AppexStore", "AppexWidgetKit", "AppexWidgetHost",
            ]
        ),
        group("DiscoveryBenchmarks", ["AppexHost"]),
        group(
            "StoreBenchmarks",
            ["DefaultsObserver", "RawSQLite", "BenchKeychainExtension", "AppexHost", "AppexStore"]
        ),
        // The secure store's unlock baseline: one AES-GCM open (swift-crypto); aux.request.roundtrip's
        // parts: the spans AppexStore starts, their times kept by a tracer.
        group(
            "SecureStoreBenchmarks",
            ["AppexStore", "AppexSecureStore", .product(name: "Crypto", package: "swift-crypto"), tracing]
        ),
        group("AuthBenchmarks", ["AppexAuth", "AppexAuthLogin", "AppexStore"]),
    ]
}

// Benchmarks/ (package-benchmark; run them with Scripts/bench.sh) join this graph when
// APPEX_BENCHMARKS is set, as Scripts/bench.sh and Scripts/extension-start-order.sh set it: they
// build beside the library and the tests, so CI's one run of each benchmark (debug, `bench.sh
// --smoke`) compiles the harness and the benchmarks only, not Appex and its dependencies again
// in a package of their own (1,124 s of CI's run). Without it, a package that depends on Appex
// never fetches the harness. (Scripts/bench.sh's figures build in release, as ever.)
if Context.environment["APPEX_BENCHMARKS"] != nil {
    package.dependencies += [
        // No trait: no benchmark counts allocations, and the malloc interposer it would preload (built
        // in release beside package-benchmark's tool) crashes a debug benchmark linking its own copy.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: [])
    ]
    package.targets += benchmarkTargets()
}

// Examples/Tracing (one trace across the process boundary, through swift-otel) joins this graph
// when APPEX_TRACING is set: `APPEX_TRACING=1 swift test --filter TracingTests`, as its README
// prints. Without it, nothing builds swift-otel (minutes of both cores) and no user fetches it.
if Context.environment["APPEX_TRACING"] != nil {
    package.dependencies += [
        // The OTLP/HTTP exporter only: the gRPC one (the default trait) would add minutes of build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"])
    ]
    package.targets += [
        // What the host and its extension agree on: the point, the request and the reply.
        .target(name: "TracingContract", path: "Examples/Tracing/Sources/TracingContract", swiftSettings: strictSwift),
        // The extension: bootstraps swift-otel from the variables its host passed on, and serves
        // each call in the span Appex opens for it (a child of the caller's).
        .executableTarget(
            name: "TracedExtension",
            dependencies: [
                "TracingContract", "AppexExtension", .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/Tracing/Sources/TracedExtension",
            swiftSettings: strictSwift
        ),
        // The host (the test process), its extension (TracedExtension, built beside the tests) and
        // a real OTLP/HTTP collector (collector.py, Python's standard library).
        .testTarget(
            name: "TracingTests",
            dependencies: [
                "TracingContract", "TracedExtension", "AppexCore", "AppexHost", "AppexTesting", "AppexTestTiers",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Tracing/Tests/TracingTests",
            exclude: ["collector.py"],
            swiftSettings: strictSwift
        ),
    ]
}
