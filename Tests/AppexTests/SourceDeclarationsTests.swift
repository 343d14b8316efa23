import AppexBuild
import AppexCore
import AppexTestTiers
import Foundation
import Testing

/// Reading bindings and point definitions from Swift sources, as the build plugin does.
@Suite(.timed) struct SourceDeclarationsTests {
    @Test(
        "an extension's binding is read in each documented form, the first after boundAppExtensionPoint; comments are skipped",
        arguments: [
            #"@AppExtensionPoint.Bind var boundAppExtensionPoint: AppExtensionPoint { AppExtensionPoint.Identifier("com.example.hostapp", name: "HostAppFeature") }"#,
            #"static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")"#,
            #"var boundAppExtensionPoint: AppExtensionPoint { AppExtensionPoint(identifier: "com.example.hostapp.HostAppFeature") }"#,
            """
            // AppExtensionPoint.Identifier("com.example.old", name: "Gone")
            var boundAppExtensionPoint: AppExtensionPoint {
                /* ExtensionPointIdentifier(host: "com.example.older", name: "Gone") */
                AppExtensionPoint.Identifier(host: "com.example.hostapp", name: "HostAppFeature")
            }
            """,
        ]
    )
    func binding(_ source: String) {
        #expect(
            SourceDeclarations(source: source).binding
                == ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
        )
    }

    @Test(
        "a @main Widget or WidgetBundle binds to WidgetKit's point; a binding written through a constant is not guessed"
    )
    func widgetAndUnreadable() {
        #expect(
            SourceDeclarations(source: "@main\nstruct Widgets: WidgetBundle { var body: some Widget { A() } }").binding
                == SourceDeclarations.widgetPoint
        )
        #expect(SourceDeclarations(source: "var boundAppExtensionPoint: AppExtensionPoint { .shared }").binding == nil)
    }

    @Test("@Definition points are read with their lines; unsaid traits take the defaults")
    func definitions() {
        let source = """
            extension AppExtensionPoint {
                @Definition
                static var MySecureFeature: AppExtensionPoint {
                    Name("MySecureFeature")
                    UserInterface(false)
                    EnhancedSecurity(true)
                }
                @Definition public static var open: AppExtensionPoint {
                    Name("Open") // a comment
                    Scope(restriction: .none)
                }
            }
            """
        let points = SourceDeclarations(source: source).definitions
        #expect(points.map(\.identifier.name) == ["MySecureFeature", "Open"])
        #expect(points.first?.traits == AppExtensionPoint.Traits(requiresEnhancedSecurity: true))
        #expect(points.last?.traits == AppExtensionPoint.Traits(scope: .none))
    }

    @Test(
        "a @Definition's ResourceLimits line is read (integers, underscores, shifts) and written to the declaration's AppexResourceLimits, which the sandbox applies over its defaults"
    )
    func definitionResourceLimits() {
        let source = """
            extension AppExtensionPoint {
                @Definition
                static var Heavy: AppExtensionPoint {
                    Name("Heavy")
                    ResourceLimits(memoryBytes: 256 << 20, cpuSeconds: 10, processes: 2_048)
                }
            }
            """
        let point = SourceDeclarations(source: source).definitions.first
        let limits = AppExtensionPoint.ResourceLimits(memoryBytes: 256 << 20, cpuSeconds: 10, processes: 2048)
        #expect(point?.traits?.resourceLimits == limits)
        let declaration = point.map { ExtensionPointDeclaration($0, host: "com.example.app") }
        #expect(
            declaration?.attributes["AppexResourceLimits"]
                == .dictionary([
                    "MemoryBytes": .integer(256 << 20), "CPUSeconds": .integer(10), "Processes": .integer(2048),
                ])
        )
        #expect(declaration?.resourceLimits == limits)
        // A point that says nothing declares nothing: the defaults apply.
        let plain = ExtensionPointDeclaration(
            AppExtensionPoint(definedBy: [.name("Plain")], host: ""),
            host: "com.example.app"
        )
        #expect(plain.attributes["AppexResourceLimits"] == nil)
    }
}

/// Sources read from folders, as `appex bundle --sources` (repeatable) reads a product's targets.
@Suite(.timed) struct SourceFoldersTests {
    @Test(
        "several folders: the binding is the first found, the definitions are all of them; a missing folder is refused by name"
    )
    func folders() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("appex-sources-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (folder, text) in [
            ("App", "@main struct App {}"),
            ("AppCore", "extension AppExtensionPoint { @Definition static var a: AppExtensionPoint { Name(\"A\") } }"),
            (
                "More/Nested",
                "extension AppExtensionPoint { @Definition static var b: AppExtensionPoint { Name(\"B\") } }"
            ),
        ] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + folder + "/File.swift"))
        }
        let read = try SourceDeclarations(directories: [root + "/App", root + "/AppCore", root + "/More"])
        #expect(read.definitions.map(\.identifier.name) == ["A", "B"])
        #expect(read.binding == nil)
        #expect(throws: AppexError.self) { try SourceDeclarations(directory: root + "/Missing") }
    }
}
