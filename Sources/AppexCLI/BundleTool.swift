import AppexCore
import ArgumentParser
import Foundation

struct MakeBundle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundle",
        abstract: "Make an .appex bundle from an extension executable; its Info.plist comes from the binding in code.",
        discussion: """
            The executable is run once with --print-binding (an AppExtension prints the extension point \
            it binds to and exits); nobody types the Info.plist. With --key the bundle is signed.
            """
    )

    @Option(help: ArgumentHelp("The extension executable (an AppExtension @main).", valueName: "PATH"))
    var executable: String

    @Option(help: ArgumentHelp("Where to write the bundle; must end in .appex.", valueName: "X.appex"))
    var output: String

    @Option(
        help: ArgumentHelp(
            "CFBundleIdentifier (default: the point's host id, a dot, the executable's name in lower case).",
            valueName: "ID"
        )
    )
    var identifier: String?

    @Option(help: ArgumentHelp("CFBundleName (default: the executable's name).", valueName: "NAME"))
    var name: String?

    @Option(help: ArgumentHelp("CFBundleVersion.", valueName: "VERSION"))
    var version = "1"

    @Option(help: ArgumentHelp("CFBundleShortVersionString.", valueName: "VERSION"))
    var shortVersion = "1.0"

    @Option(help: ArgumentHelp("An entitlements plist to ship as Entitlements.plist.", valueName: "FILE"))
    var entitlements: String?

    @Option(help: ArgumentHelp("A team key: sign the bundle with it.", valueName: "FILE"))
    var key: String?

    @Flag(help: "Replace an existing bundle at --output.")
    var force = false

    func run() throws {
        var recipe = AppexBundle.ExtensionRecipe(executable: executable)
        recipe.bundleIdentifier = identifier
        recipe.name = name
        recipe.version = version
        recipe.shortVersion = shortVersion
        recipe.replacesExisting = force
        if let entitlements {
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
            recipe.entitlements = parsed
        }
        if let key {
            recipe.signingKey = try reporting { () throws(AppexError) in try SigningKey(contentsOf: key) }
        }
        let bundle = try reporting { () throws(AppexError) in try AppexBundle.makeExtension(at: output, from: recipe) }
        let point = bundle.info.extensionPointIdentifier ?? "?"
        print(
            "made \(bundle.path): \(bundle.info.bundleIdentifier ?? "?") binds to \(point)\(key == nil ? " (unsigned)" : ", signed")"
        )
    }
}
