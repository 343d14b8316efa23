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
    /// - Throws: ``/AppexSystem/AppexError`` `invalid-name` naming what is wrong.
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
            ".gitignore": ".build/\n.swiftpm/\nPackage.resolved\n",
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

    private var readme: String {
        let bundle: String
        switch kind {
        case .host:
            bundle =
                "swift package appex-bundle --product \(name) --app --identifier \(point.hostBundleIdentifier) --output \(name).app --key team.key"
        case .extension: bundle = "swift package appex-bundle --product \(name) --host HostApp.app --key team.key"
        case .widget: bundle = "swift package appex-bundle --product \(name) --host YourApp.app --key team.key"
        }
        return """
            # \(name)

            Made by `appex new \(kind.rawValue) \(name)`.

            ```
            swift test                 # the test
            \(bundle)
            ```

            """
    }
}

extension String {
    /// The string without `suffix` at its end.
    fileprivate func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
