// swift-tools-version: 6.1
// One trace across the process boundary (issue 29): a host's span and its extension's span, in
// another process, exported through swift-otel to an OTLP collector. A sibling package, like
// Examples/ and Benchmarks/, so neither the library nor the product builds swift-otel (minutes of
// both cores on a first build); it depends on Appex by path.
import PackageDescription

import struct Foundation.URL

// A path dependency's identity is its folder's name, which depends on where the repository was
// cloned: read it instead of assuming it.
let appexFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AppexTracingExample",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        // The OTLP/HTTP exporter only: the gRPC one (the default trait) would add minutes of build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // What the host and its extension agree on: the point, the request and the reply.
        .target(
            name: "TracingContract",
            swiftSettings: strictSwift
        ),
        // The extension: bootstraps swift-otel from the variables its host passed on, and serves
        // each call in the span Appex opens for it (a child of the caller's).
        .executableTarget(
            name: "TracedExtension",
            dependencies: [
                "TracingContract",
                .product(name: "AppexExtension", package: appexFolder),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift
        ),
        // The host (the test process), its extension (TracedExtension, built beside the tests) and
        // a real OTLP/HTTP collector (collector.py, Python's standard library).
        .testTarget(
            name: "TracingTests",
            dependencies: [
                "TracingContract", "TracedExtension",
                .product(name: "AppexCore", package: appexFolder),
                .product(name: "AppexHost", package: appexFolder),
                .product(name: "AppexTesting", package: appexFolder),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["collector.py"],
            swiftSettings: strictSwift
        ),
    ]
)
