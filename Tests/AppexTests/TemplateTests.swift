import AppexCommandCore
import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import Foundation
import Testing

/// `appex new` packages, bundled with the `appex-bundle` plugin, as a new user would: in a new
/// package that depends on Appex by path.
///
/// Each README test builds Appex in one or two new packages (several minutes on two cores), so
/// the suite runs apart from the rest (`Scripts/test.sh`); its three READMEs run at once, since
/// one build's serial stretches (resolving, linking, the plugin's own compile, the tests) leave a
/// core that another's compiles fill.
@Suite(.timed) struct TemplateTests {
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
        "appex new, as the README prints it (no --appex), makes a package on the checkout appex was built from, run where it was built and from a copy elsewhere (an installed appex)"
    )
    func newWithoutAppexOption() async throws {
        let world = try AppexTestEnvironment()
        let installed = world.root.appending("bin")
        try FileManager.default.createDirectory(atPath: installed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: appexExecutable, toPath: installed + "/appex")
        let output = world.root.appending("made")
        for (tool, name) in [(appexExecutable, "FromBuild"), (installed + "/appex", "FromCopy")] {
            let made = try await run(
                tool,
                ["new", "widget", name, "--output", output],
                environment: world.processVariables
            )
            try #require(made.status == 0, "\(made.standardError)")
            let manifest = try String(contentsOfFile: output + "/\(name)/Package.swift", encoding: .utf8)
            #expect(manifest.contains(".package(path: \"\(packageRoot)\")"), "\(manifest)")
        }
    }

    @Test("appex --version prints the release the appex-bundle plugin asks an installed appex for")
    func versionMatchesThePlugin() async throws {
        let world = try AppexTestEnvironment()
        let printed = try await appex("--version", in: world)
        #expect(printed.status == 0)
        #expect(printed.standardOutput == appexVersion + "\n")
        let plugin = try String(
            contentsOfFile: packageRoot + "/Plugins/AppexBundlePlugin/AppexBundlePlugin.swift",
            encoding: .utf8
        )
        #expect(plugin.contains("static let appexVersion = \"\(appexVersion)\""))
    }

    /// `path` with the folder of the `appex` this test run built first, as `Scripts/install.sh`'s
    /// `~/.local/bin` would be.
    static func pathWithAppex(_ path: String?) -> String {
        URL(fileURLWithPath: appexExecutable).deletingLastPathComponent().path + ":" + (path ?? "/usr/bin:/bin")
    }

    /// The shell block of a generated README: the lines between its ```sh fence and the next.
    static func shellBlock(of readme: String) throws -> String {
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```sh"), "the README has no ```sh block")
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"), "the README's ```sh block is not closed")
        return lines[(start + 1)..<end].joined(separator: "\n")
    }

    /// Makes a `kind` package named `name` with `appex new` in a new folder, and runs the shell
    /// block of its README there as written (`bash -e`: the first failing command stops it), as a
    /// new user of this machine would: `swift` from the PATH, Appex's state in `world`, and the
    /// `appex` this test run built first on the PATH, where `Scripts/install.sh` puts the user's
    /// (the same release: the plugin uses it as it would an installed one).
    static func followReadme(
        of kind: PackageTemplate.Kind,
        named name: String,
        in world: AppexTestEnvironment
    ) async throws -> (package: String, output: ProcessOutput) {
        let work = world.root.appending("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // The README's line (`appex new widget Weather --output ~/src`), with no --appex: the package
        // depends on the checkout this appex was built from. Only the folder differs (a test's own).
        let made = try await appex("new", kind.rawValue, name, "--output", work, in: world)
        try #require(made.status == 0, "\(made.standardError)")
        let package = work + "/" + name
        let readme = try String(contentsOfFile: package + "/README.md", encoding: .utf8)
        let block = try shellBlock(of: readme)
        var environment = world.processVariables
        environment["PATH"] = Self.pathWithAppex(environment["PATH"])
        let apps = world.root.appending("Applications")
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        environment["APPEX_APPS_PATH"] = apps
        let output = try await run(
            "/bin/bash",
            ["-e", "-c", "cd \"$1\"\n" + block, "readme", package],
            environment: environment,
            timeout: 2400
        )
        try #require(
            output.status == 0,
            "the README's block failed:\n\(block)\n--- output:\n\(output.standardOutput.suffix(4000))\n--- errors:\n\(output.standardError.suffix(4000))"
        )
        return (package, output)
    }

    @Test(
        "a new widget package's README, run as written: its test passes, a key is made, the plugin bundles the widget (static Swift and C++ runtimes, valid), the owner enables it and the widget host draws it",
        .tags(.template),
        .timeLimit(.minutes(40))
    )
    func widgetReadme() async throws {
        let world = try AppexTestEnvironment()
        let (package, output) = try await Self.followReadme(of: .widget, named: "Weather", in: world)
        #expect(output.standardOutput.contains("com.example.weather\tunapproved"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("enabled com.example.weather"))
        #expect(output.standardOutput.contains("Hello from Weather"), "\(output.standardOutput)")
        #expect(
            output.standardOutput.contains(
                "made \(package)/Widgets/Weather.appex: com.example.weather binds to com.apple.widgetkit-extension, signed"
            )
        )
        let bundle = package + "/Widgets/Weather.appex"
        #expect(AppexBundle.load(at: bundle).problems == [])
        // The static Swift runtime: the executable needs no toolchain's libraries.
        let libraries = try await run("/usr/bin/ldd", [bundle + "/Weather"], environment: [:])
        #expect(!libraries.standardOutput.contains("libswiftCore"), "\(libraries.standardOutput)")
        // Nor libcurl: FoundationNetworking comes with `import AppexWidgetKit`, and the widget
        // never fetches, so the bundle takes it off (UnusedCurl).
        #expect(!libraries.standardOutput.contains("libcurl"), "\(libraries.standardOutput)")
        // Nor the C++ runtime's: the plugin links libstdc++ and libgcc in (Linker/static-cxx),
        // which a launch would otherwise load and relocate (decision 0168).
        #expect(!libraries.standardOutput.contains("libstdc++"), "\(libraries.standardOutput)")
        #expect(!libraries.standardOutput.contains("libgcc_s"), "\(libraries.standardOutput)")
        // Linked by ld.lld in the order an extension's start runs (decision 0168).
        #expect(output.standardOutput.contains("linking Weather with ld.lld in the order an extension's start runs"))
        let comment = try await run(
            "/usr/bin/env",
            ["readelf", "-p", ".comment", bundle + "/Weather"],
            environment: [:]
        )
        #expect(comment.standardOutput.contains("LLD"), "\(comment.standardOutput)")
        // Its relative relocations packed (DT_RELR, this machine's glibc reads them): a start
        // reads kilobytes of them, not megabytes (decision 0168). It ran above, so it loads.
        let sections = try await run("/usr/bin/env", ["readelf", "-S", "-W", bundle + "/Weather"], environment: [:])
        #expect(sections.standardOutput.contains(".relr.dyn"), "\(sections.standardOutput)")

        // The plugin's --help: what it does and every option, as `appex bundle --help` gives.
        let help = try await swift(["package", "--package-path", package, "appex-bundle", "--help"], timeout: 600)
        #expect(help.status == 0, "\(help.standardError)")
        for option in [
            "OVERVIEW:", "USAGE: swift package appex-bundle --product NAME", "--host HOST.app", "--key FILE",
            "--identifier ID", "--app",
        ] {
            #expect(help.standardOutput.contains(option), "--help does not mention \(option): \(help.standardOutput)")
        }
        #expect(!output.standardOutput.contains("building appex-bundler"), "the README's bundle built appex-bundler")
    }

    @Test(
        "a new extension package's README, run as written: a host made by appex new host is bundled, the extension is bundled into it, listed enabled, and answers a call",
        .tags(.template),
        .timeLimit(.minutes(40))
    )
    func extensionReadme() async throws {
        let world = try AppexTestEnvironment()
        let (package, output) = try await Self.followReadme(of: .extension, named: "Exporter", in: world)
        let app = package + "/HostApp.app"
        #expect(
            output.standardOutput.split(separator: "\n").contains {
                $0.hasPrefix("enabled ") && $0.contains(" com.example.hostapp.exporter ")
            },
            "\(output.standardOutput)"
        )
        #expect(output.standardOutput.contains(#"{"text":"Exporter heard: hello"}"#), "\(output.standardOutput)")
        let validated = try await appex("validate", app, in: world)
        #expect(validated.status == 0, "\(validated.standardOutput)")
        #expect(validated.standardOutput.contains("valid extension com.example.hostapp.exporter"))
    }

    @Test(
        "a new host package's README, run as written: the app is bundled and lists no extension, an extension made by appex new extension is bundled into it, and the app's monitor lists it; built again, the plugin's own appex-bundler (no appex on the PATH) bundles the same bytes",
        .tags(.template),
        .timeLimit(.minutes(40))
    )
    func hostReadme() async throws {
        let world = try AppexTestEnvironment()
        let (package, output) = try await Self.followReadme(of: .host, named: "Notes", in: world)
        let lines = output.standardOutput.components(separatedBy: "\n")
        let listings = lines.indices.filter { lines[$0].hasPrefix("com.example.hostapp.HostAppFeature: ") }
        try #require(listings.count == 2, "\(output.standardOutput)")
        #expect(lines[listings[0]].hasSuffix(": 0 extension(s)"))
        #expect(lines[listings[1]].hasSuffix(": 1 extension(s)"))
        #expect(
            lines[listings[1] + 1] == "NotesExtension (com.example.hostapp.notesextension)",
            "\(output.standardOutput)"
        )
        #expect(lines.contains { $0.hasPrefix("enabled ") && $0.contains(" com.example.hostapp.notesextension ") })
        #expect(!output.standardOutput.contains("building appex-bundler"), "the README's bundle built appex-bundler")

        // Built again from the same source (its module and executable removed) and bundled again by the README's
        // line, by the plugin's own appex-bundler this time (no appex on the PATH): the same bytes (the seal carries
        // no timestamp, and both tools make bundles with the same code). Here rather than in the widget's test: this
        // package's `swift test` has compiled what appex-bundler needs (swift-crypto's BoringSSL, in debug), a
        // widget's has not (about 300 s of a core in CI's template tier).
        for built in ["Notes", "Notes.build", "NotesCore.build"] {
            try? FileManager.default.removeItem(atPath: package + "/.build/release/" + built)
        }
        let readme = try String(contentsOfFile: package + "/README.md", encoding: .utf8)
        let bundleLine = try #require(
            try Self.shellBlock(of: readme).components(separatedBy: "\n").first {
                $0.hasPrefix("swift package appex-bundle --product Notes --app ") && $0.hasSuffix(" --output Notes.app")
            },
            "the README does not bundle Notes.app"
        )
        let second = world.root.appending("second/Notes.app")
        var withoutAppex = ProcessInfo.processInfo.environment
        withoutAppex["PATH"] = (withoutAppex["PATH"] ?? "").split(separator: ":").filter {
            !FileManager.default.isExecutableFile(atPath: "\($0)/appex")
        }.joined(separator: ":")
        let again = try await run(
            "/bin/bash",
            [
                "-e", "-c", "cd \"$1\"\n" + String(bundleLine.dropLast("Notes.app".count)) + "\"$2\"", "again", package,
                second,
            ],
            environment: withoutAppex,
            timeout: 2400
        )
        try #require(again.status == 0, "\(again.standardOutput.suffix(3000))\(again.standardError.suffix(2000))")
        #expect(again.standardOutput.contains("no appex 0.1.0 on the PATH"), "\(again.standardOutput)")
        // The extensions the README bundled into the first app are not the app's (its seal leaves them out).
        let first = try Self.tree(package + "/Notes.app").filter { !$0.key.hasPrefix("Extensions/") }
        #expect(first.count >= 3)
        let rebuilt = try Self.tree(second)
        let differing = Set(first.keys).union(rebuilt.keys).filter { first[$0] != rebuilt[$0] }.sorted()
        #expect(differing.isEmpty, "the two bundles differ in \(differing)")
    }
}
