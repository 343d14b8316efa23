/// The files of a new package that builds, bundles and runs at once, with a test: what
/// `appex new host|extension|widget NAME` writes (Xcode's Generic Extension target, for SwiftPM).
///
/// Each kind is one executable product named like the package, its code split so the test can
/// reach it: a library target `NAMECore` with the logic, the executable `NAME` with `@main`, and
/// `NAMECoreTests`. Bundle it with `swift package appex-bundle --product NAME`.
public struct PackageTemplate: Sendable {
    /// What the package makes.
    public enum Kind: String, Sendable, CaseIterable {
        /// A host app that defines an extension point and lists the extensions bound to it.
        case host
        /// An extension that binds to a host's point and answers its messages.
        case `extension`
        /// A WidgetKit widget.
        case widget
    }

    /// What the package makes.
    public let kind: Kind
    /// The package's and product's name (a Swift identifier).
    public let name: String
    /// The point an extension binds to (`HOST.NAME`); for a host, the name of the point it
    /// defines is the identifier's last part.
    public let point: ExtensionPointIdentifier
    /// Where the package gets Appex: a folder (a checkout) or a git URL.
    public let appex: String

    /// The package's dependency on Appex, and Appex's package identity there (a path or URL's
    /// last part).
    private var appexDependency: (declaration: String, identity: String) {
        var last = appex
        while last.hasSuffix("/") { last.removeLast() }
        let identity = String(last.split(separator: "/").last ?? "Appex").replacingSuffix(".git")
        if appex.contains("://") || appex.hasPrefix("git@") {
            return (".package(url: \"\(appex)\", branch: \"main\")", identity)
        }
        return (".package(path: \"\(appex)\")", identity)
    }

    /// A template; fails when `name` is not a Swift identifier that starts with a letter.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalid-name` naming what is wrong.
    public init(
        kind: Kind,
        name: String,
        point: ExtensionPointIdentifier? = nil,
        appex: String
    ) throws(AppexError) {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
            })
        else {
            throw AppexError(
                .invalidName,
                "\"\(name)\" cannot name a package and its product: use ASCII letters, digits and _, starting with a letter"
            )
        }
        self.kind = kind
        self.name = name
        self.point = point ?? ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
        self.appex = appex
    }

    /// The files, by path relative to the package's folder.
    public var files: [String: String] {
        [
            "Package.swift": manifest,
            "Sources/\(name)Core/\(name)Core.swift": core,
            "Sources/\(name)/\(name).swift": main,
            "Tests/\(name)CoreTests/\(name)CoreTests.swift": test,
            ".gitignore": ".build/\n.swiftpm/\nPackage.resolved\nteam.key\n*.app/\n*.appex/\n",
            "README.md": readme,
        ]
    }

    /// The host's static member for its point: the point's name, its first letter lowercased.
    private var pointMember: String { point.name.prefix(1).lowercased() + point.name.dropFirst() }

    private var product: String {
        switch kind {
        case .host: "AppexHost"
        case .extension: "AppexExtension"
        case .widget: "AppexWidgetKit"
        }
    }

    private var manifest: String {
        """
        // swift-tools-version: 6.1
        import PackageDescription

        let package = Package(
            name: "\(name)",
            products: [.executable(name: "\(name)", targets: ["\(name)"])],
            dependencies: [\(appexDependency.declaration)],
            targets: [
                .target(name: "\(name)Core", dependencies: [.product(name: "\(product)", package: "\(appexDependency.identity)")]),
                .executableTarget(name: "\(name)", dependencies: ["\(name)Core"]),
                .testTarget(
                    name: "\(name)CoreTests",
                    dependencies: ["\(name)Core", .product(name: "\(product)", package: "\(appexDependency.identity)")]
                ),
            ]
        )

        """
    }

    private var core: String {
        switch kind {
        case .widget:
            """
            public import AppexWidgetKit
            public import Foundation

            /// What the widget shows at one moment.
            public struct \(name)Entry: TimelineEntry {
                public var date: Date
                public var message: String
            }

            /// The widget's timeline: one entry now, the next in an hour.
            public struct \(name)Provider: TimelineProvider {
                public init() {}
                /// The entry shown at `date`.
                public func entry(at date: Date) -> \(name)Entry {
                    \(name)Entry(date: date, message: "Hello from \(name)")
                }
                public func placeholder(in context: Context) -> \(name)Entry {
                    entry(at: Date())
                }
                public func getSnapshot(in context: Context, completion: @escaping (\(name)Entry) -> Void) {
                    completion(placeholder(in: context))
                }
                public func getTimeline(in context: Context, completion: @escaping (Timeline<\(name)Entry>) -> Void) {
                    let now = Date()
                    completion(Timeline(entries: [entry(at: now)], policy: .after(now.addingTimeInterval(3600))))
                }
            }

            /// The widget.
            public struct \(name)Widget: Widget {
                public init() {}
                public var body: some WidgetConfiguration {
                    StaticConfiguration(kind: "\(name)", provider: \(name)Provider()) { entry in
                        Text(entry.message).font(.headline).containerBackground(.fill.tertiary, for: .widget)
                    }
                    .configurationDisplayName("\(name)")
                    .supportedFamilies([.systemSmall, .systemMedium])
                }
            }

            """
        case .extension:
            """
            public import AppexExtension

            /// A message the host sends.
            public struct \(name)Request: Codable, Sendable {
                public var text: String
                public init(text: String) { self.text = text }
            }

            /// The extension's answer.
            public struct \(name)Reply: Codable, Sendable, Equatable {
                public var text: String
                public init(text: String) { self.text = text }
            }

            /// Answers each of the host's messages.
            public struct \(name)Handler: XPCPeerHandler {
                public init() {}
                public func handleIncomingRequest(_ message: \(name)Request) -> \(name)Reply? {
                    \(name)Reply(text: "\(name) heard: " + message.text)
                }
            }

            """
        case .host:
            """
            public import AppexHost

            extension AppExtensionPoint {
                /// The point this app's extensions bind to. `swift package appex-bundle --app`
                /// writes its declaration into the app bundle.
                @Definition
                public static var \(pointMember): AppExtensionPoint {
                    Name("\(point.name)")
                    UserInterface(false)
                }
            }

            /// One line for each extension the monitor lists.
            public func describe(_ identities: [AppExtensionIdentity]) -> [String] {
                identities.map { "\\($0.localizedName) (\\($0.bundleIdentifier))" }
            }

            """
        }
    }

    private var main: String {
        switch kind {
        case .widget:
            """
            import AppexWidgetKit
            import \(name)Core

            @main
            struct \(name)Widgets: WidgetBundle {
                var body: some Widget {
                    \(name)Widget()
                }
            }

            """
        case .extension:
            """
            import AppexExtension
            import \(name)Core

            @main
            struct \(name)Extension: AppExtension {
                @AppExtensionPoint.Bind
                var boundAppExtensionPoint: AppExtensionPoint {
                    AppExtensionPoint.Identifier("\(point.hostBundleIdentifier)", name: "\(point.name)")
                }

                var configuration: ConnectionHandler {
                    ConnectionHandler { request in
                        let handler = \(name)Handler()
                        return request.accept { session in
                            return handler
                        }
                    }
                }
            }

            """
        case .host:
            """
            import AppexHost
            import Foundation
            import \(name)Core

            // Lists the extensions bound to this app's point, run from inside the app bundle
            // (`swift package appex-bundle --product \(name) --app --identifier ID`).
            do {
                let monitor = try await AppExtensionPoint.Monitor(.\(pointMember))
                print("\\(AppExtensionPoint.\(pointMember)): \\(monitor.identities.count) extension(s)")
                for line in describe(monitor.identities) { print(line) }
            } catch {
                FileHandle.standardError.write(Data("\(name): \\(error)\\n".utf8))
                exit(1)
            }

            """
        }
    }

    private var test: String {
        switch kind {
        case .widget:
            """
            import Foundation
            import Testing
            import \(name)Core

            @Test func entrySaysHello() {
                #expect(\(name)Provider().entry(at: Date()).message == "Hello from \(name)")
            }

            """
        case .extension:
            """
            import Testing
            import \(name)Core

            @Test func handlerAnswers() {
                #expect(\(name)Handler().handleIncomingRequest(\(name)Request(text: "hi")) == \(name)Reply(text: "\(name) heard: hi"))
            }

            """
        case .host:
            """
            import AppexHost
            import Testing
            import \(name)Core

            @Test func pointIsNamed() {
                #expect(AppExtensionPoint.\(pointMember).identifier.name == "\(point.name)")
            }

            """
        }
    }

    /// The README: what the package is, then one shell block that takes a person from this
    /// folder to the result on screen, as written (`TemplateTests` runs it), then what each line
    /// did.
    private var readme: String {
        let lower = name.lowercased()
        let intro: String
        let steps: [String]
        let notes: String
        switch kind {
        case .widget:
            intro = """
                A WidgetKit widget for Linux. `Sources/\(name)Core/\(name)Core.swift` is the widget: its \
                timeline provider, its entry and its view. `Sources/\(name)/\(name).swift` marks it `@main`, \
                which makes the executable a whole widget extension. `Tests/\(name)CoreTests` tests the provider.
                """
            steps = [
                "swift test",
                "appex keygen --output team.key",
                "swift package appex-bundle --product \(name) --key team.key --identifier com.example.\(lower) --output Widgets/\(name).appex",
                "export APPEX_EXTENSIONS_PATH=\"$PWD/Widgets\"",
                "appex widgets list --all",
                "appex widgets enable com.example.\(lower)",
                "appex widgets show \(name)",
            ]
            notes = """
                1. `swift test` runs the provider's test.
                2. `appex keygen` makes your team's signing key and prints your team ID. Keep `team.key` \
                secret (`.gitignore` lists it); every bundle you sign with it is your team's.
                3. `swift package appex-bundle` builds the widget in release mode with the static Swift \
                runtime, writes its Info.plist from the `@main` (it binds to `com.apple.widgetkit-extension`), \
                signs it, and checks it as `appex validate` does: a bundle with a problem is not made, and \
                each problem is named. A widget made outside an app needs `--identifier`.
                4. The widget host finds widgets inside apps on `APPEX_APPS_PATH` (default `~/Applications`) \
                and on their own on `APPEX_EXTENSIONS_PATH`.
                5. `widgets list --all` shows `\(name)` as `unapproved`: a widget that does not ship inside \
                an app waits for the owner.
                6. `widgets enable` approves it (and its team).
                7. `widgets show` draws it as the widget host shows it: a box saying "Hello from \(name)". \
                `appex widgets run` keeps widgets current; `--html FILE` writes a page.

                To ship the widget inside an app instead, bundle it with `--host YourApp.app` in the place of \
                `--identifier` and `--output` (its identifier becomes the app's, a dot, `\(lower)`); a widget \
                inside an app on `APPEX_APPS_PATH`, signed by the app's team, is enabled at once. \
                `appex new host` makes an app.
                """
        case .extension:
            let host = point.hostBundleIdentifier
            steps = [
                "swift test",
                "appex keygen --output team.key",
                "appex new host HostApp --point \(point) --output .. --appex \(Self.shellWord(appex))",
                "swift package --package-path ../HostApp appex-bundle --product HostApp --app --identifier \(host) --key team.key --output HostApp.app",
                "swift package appex-bundle --product \(name) --host HostApp.app --key team.key",
                "appex list --host HostApp.app",
                "appex call --host HostApp.app \(host).\(lower) '{\"text\": \"hello\"}'",
            ]
            intro = """
                An app extension for Linux that binds to the point `\(point)`. \
                `Sources/\(name)/\(name).swift` is the extension: its `@main`, its binding and its \
                connection handler. `Sources/\(name)Core/\(name)Core.swift` is what it does with each \
                message, which `Tests/\(name)CoreTests` tests.
                """
            notes = """
                1. `swift test` runs the handler's test.
                2. `appex keygen` makes your team's signing key and prints your team ID. Keep `team.key` \
                secret (`.gitignore` lists it).
                3. `appex new host` makes a host app's package beside this one, defining the point \
                `\(point)` with `@Definition`.
                4. Its `appex-bundle --app` builds it and makes `HostApp.app`, whose extension points come \
                from its sources.
                5. `appex-bundle --host` builds this extension in release mode with the static Swift runtime, \
                writes its Info.plist from its binding, signs it, and puts it in the app's `Extensions/` \
                folder, checked against the app's points as `appex validate` checks it: a bundle with a \
                problem is not made, and each problem is named.
                6. `appex list` shows it `enabled`: it ships inside its app, signed by the app's team.
                7. `appex call` launches it in its sandbox as the app would, sends it one message (the JSON \
                of `\(name)Request`) and prints its reply: `{"text":"\(name) heard: hello"}`.

                The app itself lists its extensions: `./HostApp.app/HostApp`.
                """
        case .host:
            let extensionName = "\(name)Extension"
            steps = [
                "swift test",
                "appex keygen --output team.key",
                "swift package appex-bundle --product \(name) --app --identifier \(point.hostBundleIdentifier) --key team.key --output \(name).app",
                "./\(name).app/\(name)",
                "appex new extension \(extensionName) --point \(point) --output .. --appex \(Self.shellWord(appex))",
                "swift package --package-path ../\(extensionName) appex-bundle --product \(extensionName) --host \(name).app --key team.key",
                "appex list --host \(name).app",
                "./\(name).app/\(name)",
            ]
            intro = """
                A host app for Linux that defines the extension point `\(point)`. \
                `Sources/\(name)Core/\(name)Core.swift` defines it with `@Definition`; \
                `Sources/\(name)/\(name).swift` lists the extensions bound to it with \
                `AppExtensionPoint.Monitor`. `Tests/\(name)CoreTests` tests the definition.
                """
            notes = """
                1. `swift test` runs the test.
                2. `appex keygen` makes your team's signing key and prints your team ID. Keep `team.key` \
                secret (`.gitignore` lists it).
                3. `swift package appex-bundle --app` builds the app in release mode with the static Swift \
                runtime and makes `\(name).app`: its Info.plist, its extension points from its \
                `@Definition`s, an `Extensions/` folder, its seal. It is checked as `appex validate` does.
                4. The app runs from its bundle and lists its point's extensions: none yet.
                5. `appex new extension` makes an extension's package beside this one, bound to `\(point)`.
                6. Its `appex-bundle --host` builds it and puts it in the app's `Extensions/` folder, checked \
                against the app's points.
                7. `appex list` shows it `enabled`: it ships inside the app, signed by the app's team.
                8. The app lists it now, through its monitor (`monitor.identities`; `Observations` or \
                `monitor.updates` follow installs and removals as they happen).

                Extensions from other teams are found on `APPEX_EXTENSIONS_PATH` and wait for \
                `appex enable --host \(name).app ID` (the point's scope must be `.none` for them: \
                `Scope(restriction: .none)` in the `@Definition`).
                """
        }
        return """
            # \(name)

            Made by `appex new \(kind.rawValue) \(name)`. \(intro)

            ## From here to a running result

            Run these from this folder, in order. `appex` is Appex's command-line tool: \
            `Scripts/install.sh` in Appex's checkout puts it in `~/.local/bin` (once; a few minutes). \
            `swift package appex-bundle` uses that `appex` when it is the same release, and otherwise \
            builds the part of it that makes bundles.

            ```sh
            \(steps.joined(separator: "\n"))
            ```

            \(notes)

            """
    }
}

extension PackageTemplate {
    /// `word` as one word of a POSIX shell command: as it is when it has nothing the shell reads,
    /// else in single quotes.
    static func shellWord(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-:@+=,".unicodeScalars.contains($0))
        }
        if plain && !word.isEmpty { return word }
        return "'" + word.map { $0 == "'" ? "'\\''" : String($0) }.joined() + "'"
    }
}

extension String {
    /// The string without `suffix` at its end.
    fileprivate func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
