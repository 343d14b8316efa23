import AppexBuild
import AppexCore
package import ArgumentParser
import Foundation

/// `appex bundle` (and `appex-bundler`, the appex-bundle plugin's tool): makes an `.appex` or `.app`.
package struct MakeBundle: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract:
            "Make an .appex bundle from an extension executable (its Info.plist comes from the binding in code), or an .app from an app's.",
        discussion: """
            For an .appex, the executable is run once with --print-binding (an AppExtension or a widget \
            prints the extension point it binds to and exits); nobody types the Info.plist. A widget binds \
            to the system point com.apple.widgetkit-extension: make it inside its app's Extensions/ folder \
            (its identifier then defaults to the app's, a dot, its name) or give --identifier. \
            With --binding HOST.NAME or --sources DIR the binding is read from the command or the sources instead. \
            For an .app, --identifier is required; --extension-point NAME declares a point taking only extensions inside the app, \
            --open-extension-point NAME one taking extensions from elsewhere too, --sources DIR every @Definition point in DIR (each repeatable); the app gets an Extensions/ folder for its widgets, and \
            replacing an app with --force keeps the extensions inside it. With --key the bundle is signed. \
            The bundle is checked as `appex validate` checks it (an extension inside an app against the app's \
            points and groups) before it is moved into place: one with a problem is not made, each problem is \
            named, and the exit code is 1.
            """
    )

    @Option(help: ArgumentHelp("The extension executable (an AppExtension @main).", valueName: "PATH"))
    package var executable: String

    @Option(
        help: ArgumentHelp("Where to write the bundle: X.appex for an extension, X.app for an app.", valueName: "PATH")
    )
    package var output: String

    @Option(
        help: ArgumentHelp(
            "CFBundleIdentifier (default: the point's host id, a dot, the executable's name in lower case).",
            valueName: "ID"
        )
    )
    package var identifier: String?

    @Option(help: ArgumentHelp("CFBundleName (default: the executable's name).", valueName: "NAME"))
    package var name: String?

    @Option(help: ArgumentHelp("CFBundleVersion.", valueName: "VERSION"))
    package var version = "1"

    @Option(help: ArgumentHelp("CFBundleShortVersionString.", valueName: "VERSION"))
    package var shortVersion = "1.0"

    @Option(help: ArgumentHelp("An entitlements plist to ship as Entitlements.plist.", valueName: "FILE"))
    package var entitlements: String?

    @Option(
        name: .customLong("extension-point"),
        help: ArgumentHelp(
            "For an .app: an extension point it declares, by name (its identifier is the app's, a dot, the name); repeatable.",
            valueName: "NAME"
        )
    )
    package var extensionPoints: [String] = []

    @Option(
        name: .customLong("open-extension-point"),
        help: ArgumentHelp(
            "For an .app: a point that also takes extensions from elsewhere (APPEX_EXTENSIONS_PATH), each unapproved until enabled (Scope(restriction: .none)); repeatable.",
            valueName: "NAME"
        )
    )
    package var openExtensionPoints: [String] = []

    @Option(
        help: ArgumentHelp(
            "For an .appex: the point it binds to (HOST.NAME), instead of running the executable with --print-binding.",
            valueName: "ID"
        )
    )
    package var binding: String?

    @Option(
        help: ArgumentHelp(
            "The product's Swift sources (repeatable: its target and those it depends on): an .appex's binding, or an .app's @Definition points, read from them (not by running the executable).",
            valueName: "DIR"
        )
    )
    package var sources: [String] = []

    @Option(help: ArgumentHelp("A team key: sign the bundle with it.", valueName: "FILE"))
    package var key: String?

    @Flag(help: "Replace an existing bundle at --output.")
    package var force = false

    package init() {}

    package func run() throws {
        if AppexBundle.kind(ofPath: output) == .hostApp {
            try makeApp()
            return
        }
        var recipe = AppexBundle.ExtensionRecipe(executable: executable)
        recipe.extensionPoint = try declaredBinding()
        recipe.bundleIdentifier = identifier
        recipe.name = name
        recipe.version = version
        recipe.shortVersion = shortVersion
        recipe.replacesExisting = force
        if let entitlements { recipe.entitlements = try readEntitlements(entitlements) }
        recipe.signingKey = try signingKey()
        let bundle = try reporting { () throws(AppexError) in try AppexBundle.makeExtension(at: output, from: recipe) }
        // Made only if valid (makeExtension checks it as `appex validate` does), so both are there.
        print(
            "made \(bundle.path): \(bundle.bundleIdentifier ?? "") binds to \(bundle.info.extensionPointIdentifier ?? "")\(key == nil ? " (unsigned)" : ", signed")"
        )
        warnAboutSharing(of: bundle)
    }

    private func makeApp() throws {
        guard let identifier else {
            throw fail(
                AppexError(.refused, "an app needs its bundle identifier: give --identifier (e.g. com.example.MyApp)")
            )
        }
        var recipe = AppexBundle.AppRecipe(executable: executable, bundleIdentifier: identifier)
        recipe.name = name
        recipe.version = version
        recipe.shortVersion = shortVersion
        recipe.replacesExisting = force
        recipe.extensionPoints =
            extensionPoints.map {
                ExtensionPointDeclaration(identifier: ExtensionPointIdentifier(host: identifier, name: $0))
            }
            + openExtensionPoints.map {
                ExtensionPointDeclaration(
                    identifier: ExtensionPointIdentifier(host: identifier, name: $0),
                    scope: AppExtensionPoint.Scope.Restriction.none
                )
            }
        if !sources.isEmpty {
            let read = try reporting { () throws(AppexError) in try SourceDeclarations(directories: sources) }
            recipe.extensionPoints += read.definitions.map { ExtensionPointDeclaration($0, host: identifier) }
        }
        if let entitlements { recipe.entitlements = try readEntitlements(entitlements) }
        recipe.signingKey = try signingKey()
        let bundle = try reporting { () throws(AppexError) in try AppexBundle.makeApp(at: output, from: recipe) }
        let declares =
            recipe.extensionPoints.isEmpty
            ? "" : "; declares \(recipe.extensionPoints.map(\.identifier.description).joined(separator: ", "))"
        print(
            "made \(bundle.path): app \(identifier)\(key == nil ? " (unsigned)" : ", signed")\(declares); put its extensions in \(bundle.path)/Extensions"
        )
    }

    /// The point an extension binds to when the command says it (`--binding`, or `--sources`
    /// that say it); `nil` to ask the executable.
    private func declaredBinding() throws -> ExtensionPointIdentifier? {
        if let binding {
            guard let point = ExtensionPointIdentifier(binding) else {
                throw fail(
                    AppexError(.invalidValue, "--binding \(binding) is not an extension point identifier (HOST.NAME)")
                )
            }
            return point
        }
        if sources.isEmpty { return nil }
        let read = try reporting { () throws(AppexError) in try SourceDeclarations(directories: sources) }
        guard let point = read.binding else {
            throw fail(
                AppexError(
                    .notFound,
                    "the sources at \(sources.joined(separator: ", ")) bind to no point Appex can read (write AppExtensionPoint.Identifier(\"HOST\", name: \"NAME\") with literal strings, or give --binding HOST.NAME)",
                    context: AppexError.Context(path: sources.first)
                )
            )
        }
        return point
    }

    /// The entitlements file at `path`, read and checked.
    private func readEntitlements(_ entitlements: String) throws -> Entitlements {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: entitlements)) } catch {
            throw fail(
                AppexError(
                    .fileSystem,
                    "cannot read the entitlements file \(entitlements)",
                    context: AppexError.Context(path: entitlements),
                    underlyingError: error
                )
            )
        }
        let parsed = Entitlements(data: Array(data), file: entitlements)
        if !parsed.problems.isEmpty {
            throw fail(
                AppexError(
                    .invalidBundle,
                    "the entitlements file \(entitlements) has problems",
                    context: AppexError.Context(path: entitlements),
                    problems: parsed.problems
                )
            )
        }
        return parsed
    }

    /// The team key named by `--key`, if any.
    private func signingKey() throws -> SigningKey? {
        guard let key else { return nil }
        return try reporting { () throws(AppexError) in try SigningKey(contentsOf: key) }
    }
}
