import AppexCore
import AppexTesting
import AppexWidgetHost
import Foundation
import Testing

/// `appex new` packages, bundled with the `appex-bundle` plugin, as a new user would: in a new
/// package that depends on Appex by path.
@Suite struct TemplateTests {
    /// Every regular file under `folder`, by relative path, with its bytes.
    static func tree(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative))
            }
        }
        return files
    }

    @Test(
        "each kind of template names its product, its point and its dependency on Appex; a bad name is refused by name"
    )
    func templates() throws {
        let widget = try PackageTemplate(kind: .widget, name: "Hello", appex: "/src/Appex")
        #expect(widget.files["Package.swift"]?.contains(#".package(path: "/src/Appex")"#) == true)
        #expect(widget.files["Package.swift"]?.contains(#".product(name: "AppexWidgetKit", package: "Appex")"#) == true)
        #expect(widget.files["Sources/Hello/Hello.swift"]?.contains("struct HelloWidgets: WidgetBundle") == true)
        let point = ExtensionPointIdentifier(host: "com.example.notes", name: "Export")
        let plugin = try PackageTemplate(
            kind: .extension,
            name: "Exporter",
            point: point,
            appex: "https://example.com/Appex.git"
        )
        #expect(
            plugin.files["Sources/Exporter/Exporter.swift"]?.contains(
                #"AppExtensionPoint.Identifier("com.example.notes", name: "Export")"#
            ) == true
        )
        #expect(plugin.files["Package.swift"]?.contains(#"package: "Appex")"#) == true)
        let host = try PackageTemplate(kind: .host, name: "Notes", point: point, appex: "/src/main")
        #expect(
            host.files["Sources/NotesCore/NotesCore.swift"]?.contains("static var export: AppExtensionPoint") == true
        )
        #expect(host.files["Package.swift"]?.contains(#"package: "main""#) == true)
        // What the plugin reads from the templates: the host's point (in its Core library, which
        // the plugin reads beside the executable's folder) and the extension's binding.
        let hostCore = try #require(host.files["Sources/NotesCore/NotesCore.swift"])
        #expect(SourceDeclarations(source: hostCore).definitions.map(\.identifier.name) == ["Export"])
        let extensionMain = try #require(plugin.files["Sources/Exporter/Exporter.swift"])
        #expect(SourceDeclarations(source: extensionMain).binding == point)
        #expect(throws: AppexError.self) { try PackageTemplate(kind: .widget, name: "9lives", appex: "/src") }
        #expect(throws: AppexError.self) { try PackageTemplate(kind: .widget, name: "a/b", appex: "/src") }
    }

    @Test(
        "appex new widget makes a package whose test passes; swift package appex-bundle builds it statically, installs it in an app, and the widget host draws its entry; a second build bundles the same bytes",
        .timeLimit(.minutes(40))
    )
    func newWidgetBundledAndShown() async throws {
        let world = try AppexTestEnvironment()
        let key = world.root.appending("team.key")
        try world.team.write(to: key)
        let work = world.root.appending("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        var made = try await appex("new", "widget", "HelloWidget", "--output", work, "--appex", packageRoot, in: world)
        #expect(made.status == 0, "\(made.standardError)")
        let package = work + "/HelloWidget"
        // Made again: refused, nothing changed.
        made = try await appex("new", "widget", "HelloWidget", "--output", work, "--appex", packageRoot, in: world)
        #expect(made.status == 1 && made.standardError.contains("already exists"))

        let tested = try await swift(["test", "--package-path", package], timeout: 1800)
        #expect(tested.status == 0, "\(tested.standardOutput.suffix(3000))\(tested.standardError.suffix(2000))")

        // An app to put it in (any executable will do for the app itself).
        let apps = world.root.appending("Applications")
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        let app = apps + "/Hello.app"
        let bundled = try await appex(
            "bundle",
            "--executable",
            echoExecutable,
            "--output",
            app,
            "--identifier",
            "com.example.hello",
            "--key",
            key,
            in: world
        )
        #expect(bundled.status == 0, "\(bundled.standardError)")

        func bundle(into output: String, identifier: [String] = []) async throws {
            let result = try await swift(
                [
                    "package", "--package-path", package, "appex-bundle", "--product", "HelloWidget", "--key", key,
                    "--output", output,
                ]
                    + identifier,
                timeout: 2400
            )
            try #require(
                result.status == 0,
                "\(result.standardOutput.suffix(3000))\(result.standardError.suffix(2000))"
            )
        }
        let installed = app + "/Extensions/HelloWidget.appex"
        try await bundle(into: installed)
        let widgetBundle = AppexBundle.load(at: installed)
        #expect(widgetBundle.problems == [])
        #expect(widgetBundle.info.extensionPointIdentifier == "com.apple.widgetkit-extension")
        #expect(widgetBundle.info.bundleIdentifier == "com.example.hello.hellowidget")
        // The static Swift runtime: the executable needs no toolchain's libraries.
        let libraries = try await run("/usr/bin/ldd", [installed + "/HelloWidget"], environment: [:])
        #expect(!libraries.standardOutput.contains("libswiftCore"), "\(libraries.standardOutput)")

        var environment = world.environment
        environment.appsPath = [apps]
        let host = try WidgetHost(configuration: WidgetHost.Configuration(environment: environment))
        let states = try await host.refresh(family: .systemSmall)
        let state = try #require(states.first { $0.key.kind == "HelloWidget" }, "\(states)")
        let drawing = TerminalRenderer(width: 40, colors: false).render(state.frame())
        #expect(drawing.contains("Hello from HelloWidget"), "\(drawing)")

        // Built again from the same source (its module and executable removed), bundled again:
        // the same bytes (the seal carries no timestamp).
        let release = package + "/.build/release"
        for built in ["HelloWidget", "HelloWidget.build", "HelloWidgetCore.build"] {
            try? FileManager.default.removeItem(atPath: release + "/" + built)
        }
        let second = world.root.appending("second/HelloWidget.appex")
        try await bundle(into: second, identifier: ["--identifier", "com.example.hello.hellowidget"])
        let first = try Self.tree(installed)
        #expect(first.count >= 3)
        let again = try Self.tree(second)
        let differing = Set(first.keys).union(again.keys).filter { first[$0] != again[$0] }.sorted()
        #expect(differing.isEmpty, "the two bundles differ in \(differing)")
    }
}
