import AppexBuild
import AppexCommandCore
import AppexCore
import ArgumentParser
import Foundation

struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Create a package for a host app, an extension or a widget that builds, bundles and runs at once, with a test.",
        discussion: """
            The package depends on Appex by --appex (default: the checkout this appex was built from). \
            Bundle it with `swift package appex-bundle --product NAME` (see the package's README).
            """
    )

    @Argument(help: ArgumentHelp("What to make: host, extension or widget.", valueName: "KIND"))
    var kind: String

    @Argument(help: ArgumentHelp("The package's and its product's name.", valueName: "NAME"))
    var name: String

    @Option(
        help: ArgumentHelp(
            "The extension point: the one an extension binds to, or (its last part) the one a host defines (default com.example.hostapp.HostAppFeature).",
            valueName: "ID"
        )
    )
    var point: String?

    @Option(help: ArgumentHelp("Where to create the package's folder (default: here).", valueName: "DIR"))
    var output = "."

    @Option(help: ArgumentHelp("Appex's checkout folder or git URL.", valueName: "PATH|URL"))
    var appex: String?

    func run() throws {
        guard let kind = PackageTemplate.Kind(rawValue: kind) else {
            throw fail(AppexError(.invalidValue, "\"\(kind)\" is not a kind of package: use host, extension or widget"))
        }
        var identifier: ExtensionPointIdentifier?
        if let point {
            guard let parsed = ExtensionPointIdentifier(point) else {
                throw fail(
                    AppexError(.invalidValue, "--point \(point) is not an extension point identifier (HOST.NAME)")
                )
            }
            identifier = parsed
        }
        guard let location = appex ?? Self.builtFromCheckout else {
            throw fail(
                AppexError(
                    .notFound,
                    "the Appex checkout this appex was built from (\(Self.checkout)) is gone: give --appex PATH|URL",
                    context: .init(path: Self.checkout)
                )
            )
        }
        let template = try reporting { () throws(AppexError) in
            try PackageTemplate(kind: kind, name: name, point: identifier, appex: location)
        }
        let folder = output + "/" + name
        guard !FileManager.default.fileExists(atPath: folder) else {
            throw fail(
                AppexError(.conflict, "\(folder) already exists: nothing was written", context: .init(path: folder))
            )
        }
        do {
            for (path, contents) in template.files.sorted(by: { $0.key < $1.key }) {
                let file = URL(fileURLWithPath: folder + "/" + path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try Data(contents.utf8).write(to: file)
            }
        } catch {
            throw fail(
                AppexError(
                    .fileSystem,
                    "cannot write the package at \(folder)",
                    context: .init(path: folder),
                    underlyingError: error
                )
            )
        }
        print(
            "made \(kind.rawValue) package \(folder): `swift test` there, then `swift package appex-bundle --product \(name)`"
        )
    }

    /// The folder of the Appex checkout this tool was compiled from (this file's package), by
    /// its source path: the same for `swift run appex`, a debug or release build, and an `appex`
    /// that `Scripts/install.sh` copied elsewhere.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// ``checkout``, while it is still Appex's package (its manifest and this command's source).
    static var builtFromCheckout: String? {
        let manager = FileManager.default
        return manager.fileExists(atPath: checkout + "/Package.swift")
            && manager.fileExists(atPath: checkout + "/Sources/AppexCLI/NewCommand.swift") ? checkout : nil
    }
}
