// swift-tools-version: 6.1
// Appex's benchmarks: a sibling package, so the main package's build and tests never pay for
// the harness. Run them with `Scripts/bench.sh` from the repository root.
import PackageDescription
import class Foundation.ProcessInfo
import struct Foundation.URL

// A path dependency's identity is its folder's name, which depends on where the repository
// was cloned: read it instead of assuming it.
let appexRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let appexFolder = appexRoot.lastPathComponent

// The benchmark extensions are laid out in the order their start touches the Swift runtime,
// libdispatch, the C library and Appex's extension runtime (Linker/extension-start.order, ld.lld):
// the start's code and data sit in few 64 KB windows (docs/decisions/0168-extension-start-layout.md;
// the appex-bundle plugin links an extension product so too).
let startLayout = [
    "-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(appexRoot.path)/Linker/extension-start.order",
    "-Xlinker", "--no-warn-symbol-ordering",
]

// As docs/DESIGN.md advises for extensions: the Swift runtime and Foundation linked in, so a
// launch does not spend milliseconds in the dynamic loader (the benchmark extensions link so).
let staticallyLinked: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib"] + startLayout),
    .linkedLibrary("CoreFoundation"), .linkedLibrary("_FoundationICU"),
    .linkedLibrary("_FoundationCShims"), .linkedLibrary("_FoundationCollections"), .linkedLibrary("stdc++"),
]

// Linked fully statically (docs/decisions/0166): no dynamic loader at all, and an extension main
// that never unwinds (MainThreadLoop), so nothing sorts the unwind tables at start. Only for an
// extension that links no FoundationNetworking (libcurl has no static archive here).
let fullyStatic: [LinkerSetting] = [
    .unsafeFlags(["-static-executable"] + startLayout),
    .linkedLibrary("CoreFoundation"), .linkedLibrary("_FoundationICU"),
    .linkedLibrary("_FoundationCShims"), .linkedLibrary("_FoundationCollections"), .linkedLibrary("stdc++"),
]

let package = Package(
    name: "AppexBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Appex, and the product (ContactsExplorer and its widget, products of the same package),
        // for the product's figures.
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The raw SQLite baselines call the sqlite3 C API through GRDB's system-library module,
        // the same SQLite the main package links.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The secure store's unlock baseline: one AES-GCM open.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // aux.request.roundtrip's parts: the spans AppexStore starts, their times kept by a tracer.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        .target(name: "CPingPong", path: "Sources/CPingPong"),
        .target(
            name: "BenchSmoke",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Sources/BenchSmoke",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "BenchInterfaces",
            dependencies: [
                .product(name: "AppexIPC", package: appexFolder),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Sources/BenchInterfaces",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The bare-spawn baselines' children (Fixtures/FirstByte, Fixtures/BareEcho), compiled
        // at run time as libc-only programs: SwiftPM would link the Swift runtime into them.
        .target(name: "BenchChildren", path: "Sources/BenchChildren", swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "BenchExtension",
            // An extension needs AppexExtension alone: no swift-crypto, GRDB or bundle code.
            dependencies: [
                "BenchInterfaces",
                .product(name: "AppexExtension", package: appexFolder),
            ],
            path: "Fixtures/BenchExtension",
            swiftSettings: [.swiftLanguageMode(.v6)],
            linkerSettings: fullyStatic
        ),
        .executableTarget(
            name: "BenchKeychainExtension",
            // keychain.read.brokered's extension: sandboxed, its keychain goes through the broker.
            dependencies: [
                .product(name: "AppexExtension", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
            ],
            path: "Fixtures/BenchKeychainExtension",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "IPCBenchmarks",
            dependencies: [
                "CPingPong", "BenchExtension", "BenchChildren", "BenchInterfaces",
                .product(name: "AppexIPC", package: appexFolder),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
            ],
            path: "Benchmarks/IPCBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .target(
            name: "BenchWidgetViews",
            dependencies: [.product(name: "AppexWidgetKit", package: appexFolder)],
            path: "Sources/BenchWidgetViews",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "BenchWidget",
            // A widget extension needs AppexWidgetKit alone; linked as BenchExtension is.
            dependencies: [
                "BenchWidgetViews",
                .product(name: "AppexWidgetKit", package: appexFolder),
            ],
            path: "Fixtures/BenchWidget",
            swiftSettings: [.swiftLanguageMode(.v6)],
            linkerSettings: staticallyLinked
        ),
        .executableTarget(
            name: "BenchWidgetHostRSS",
            dependencies: [
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexWidgetHost", package: appexFolder),
            ],
            path: "Fixtures/BenchWidgetHostRSS",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "WidgetBenchmarks",
            dependencies: [
                "BenchWidget", "BenchWidgetHostRSS", "BenchWidgetViews", "CPingPong", "BenchChildren",
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
                .product(name: "AppexWidgetKit", package: appexFolder),
                .product(name: "AppexWidgetHost", package: appexFolder),
            ],
            path: "Benchmarks/WidgetBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "BenchTickerWidget",
            dependencies: [.product(name: "AppexWidgetKit", package: appexFolder)],
            path: "Fixtures/BenchTickerWidget",
            swiftSettings: [.swiftLanguageMode(.v6)],
            linkerSettings: staticallyLinked
        ),
        .executableTarget(
            name: "WindowBenchmarks",
            dependencies: [
                "BenchWidget", "BenchTickerWidget",
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
                .product(name: "AppexWidgetHost", package: appexFolder),
                .product(name: "AppexWindow", package: appexFolder),
            ],
            path: "Benchmarks/WindowBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ProductBenchmarks",
            dependencies: [
                "BenchWidget",
                .product(name: "ContactsKit", package: appexFolder),
                .product(name: "ContactsExplorer", package: appexFolder),
                .product(name: "RecentContacts", package: appexFolder),
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexAuth", package: appexFolder),
                .product(name: "AppexAuthLogin", package: appexFolder),
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
                .product(name: "AppexWidgetKit", package: appexFolder),
                .product(name: "AppexWidgetHost", package: appexFolder),
            ],
            path: "Benchmarks/ProductBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "DiscoveryBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
            ],
            path: "Benchmarks/DiscoveryBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .target(
            name: "RawSQLite",
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "Sources/RawSQLite",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "DefaultsObserver",
            dependencies: [
                "RawSQLite",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
            ],
            path: "Fixtures/DefaultsObserver",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                "DefaultsObserver", "RawSQLite", "BenchKeychainExtension",
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
            ],
            path: "Benchmarks/StoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "SecureStoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
                .product(name: "AppexSecureStore", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Benchmarks/SecureStoreBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "AuthBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "BenchSmoke",
                .product(name: "AppexAuth", package: appexFolder),
                .product(name: "AppexAuthLogin", package: appexFolder),
                .product(name: "AppexStore", package: appexFolder),
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
            ],
            path: "Benchmarks/AuthBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
