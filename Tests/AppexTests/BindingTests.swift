import AppexExtension
import AppexTestTiers
import Testing

/// Seed 001's binding, as ExtensionKit writes it (imports changed).
struct SeedBoundExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature")
    }

    var configuration: ConnectionHandler { ConnectionHandler(onConnection: { _ in false }) }
}

/// The static form Appex had first.
struct StaticBoundExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "Other")

    var configuration: ConnectionHandler { ConnectionHandler(onConnection: { _ in false }) }
}

/// Neither form.
struct UnboundExtension: AppExtension {
    var configuration: ConnectionHandler { ConnectionHandler(onConnection: { _ in false }) }
}

/// The binding in both of its forms (docs/decisions/0021-extension-side.md).
@Suite(.timed) struct BindingTests {
    @Test("seed 001's @AppExtensionPoint.Bind property binds, and the static form reads it")
    func seedBinding() {
        let expected = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
        #expect(SeedBoundExtension().boundAppExtensionPoint == AppExtensionPoint(identifier: expected))
        #expect(SeedBoundExtension.boundAppExtensionPoint == expected)
        #expect(AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature") == expected)
        #expect(AppExtensionPoint.Identifier(host: "com.example.hostapp", name: "HostAppFeature") == expected)
    }

    @Test("the static binding still works, and the instance form reads it")
    func staticBinding() {
        #expect(StaticBoundExtension().boundAppExtensionPoint.description == "com.example.hostapp.Other")
    }

    @Test("a type that gives neither form binds to no point (refused by name at launch), and does not loop")
    func noBinding() {
        #expect(UnboundExtension.boundAppExtensionPoint.description == ".")
        #expect(UnboundExtension().boundAppExtensionPoint.identifier.name.isEmpty)
    }
}

/// The binding as `appex bundle` reads it from a built extension.
@Suite(.timed) struct BindingExecutableTests {
    @Test("an extension built with seed 001's binding prints it for appex bundle")
    func printedBinding() async throws {
        let output = try await run(translateExecutable, ["--print-binding"], environment: [:])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput == "com.example.hostapp.HostAppFeature\n")
    }
}
