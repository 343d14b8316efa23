import Foundation
import PackagePlugin

/// `swift package appex-bundle`: builds a product in release mode with the static Swift standard
/// library and makes its bundle — an `.appex` whose Info.plist comes from the binding in its
/// sources (read at build time, not by running it), or an `.app` whose extension points come
/// from its `@Definition`s — with its entitlements, signed. Xcode's
/// `EX_ENABLE_EXTENSION_POINT_GENERATION`, for SwiftPM. The bundle itself is made by `appex
/// bundle`, which this plugin runs.
@main
struct AppexBundlePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        if extractor.extractFlag(named: "help") > 0 {
            print(Options.help)
            return
        }
        let options = Options(
            product: extractor.extractOption(named: "product").last,
            host: extractor.extractOption(named: "host").last,
            key: extractor.extractOption(named: "key").last,
            output: extractor.extractOption(named: "output").last,
            identifier: extractor.extractOption(named: "identifier").last,
            name: extractor.extractOption(named: "name").last,
            entitlements: extractor.extractOption(named: "entitlements").last,
            isApp: extractor.extractFlag(named: "app") > 0
        )
        guard extractor.remainingArguments.isEmpty else {
            throw PluginFailure("unknown arguments \(extractor.remainingArguments); \(Options.usage)")
        }
        guard let productName = options.product else { throw PluginFailure("give --product NAME; \(Options.usage)") }
        guard let product = context.package.products.first(where: { $0.name == productName }) as? ExecutableProduct
        else {
            let names = context.package.products.compactMap { $0 as? ExecutableProduct }.map(\.name)
            throw PluginFailure(
                "\(productName) is not an executable product of \(context.package.displayName) (it has: \(names.joined(separator: ", ")))"
            )
        }

        // Release, with the Swift runtime linked in: the bundle runs on a machine without a toolchain.
        // The C++ runtime too, and nothing exported to the dynamic loader: a launch loads no
        // libstdc++.so or libgcc_s (0.75 ms of a widget's 3.3-ms start; docs/decisions/0168).
        var parameters = PackageManager.BuildParameters(configuration: .release, logging: .concise)
        parameters.otherSwiftcFlags = ["-static-stdlib", "-L", Self.staticCxx, "-Xclang-linker", "-static-libgcc"]
        parameters.otherLinkerFlags = ["--no-export-dynamic"]
        if (try? context.tool(named: "ld.lld")) != nil {
            // Linked by ld.lld, an app and an extension alike (the same compiler flags: building
            // one after the other recompiles nothing); an extension's code and data in the order
            // its start touches them (docs/decisions/0168-extension-start-layout.md).
            parameters.otherSwiftcFlags.append("-use-ld=lld")
            if !options.isApp, FileManager.default.fileExists(atPath: Self.startOrder) {
                parameters.otherLinkerFlags += [
                    "--symbol-ordering-file=\(Self.startOrder)", "--no-warn-symbol-ordering",
                ]
                print("linking \(productName) with ld.lld in the order an extension's start runs")
            }
            if Self.loaderUnpacksRelocations {
                // Relative relocations packed (DT_RELR): a PIE's start reads 15 KB of them, not
                // 1.9 MB, and keeps its ASLR (0.3-0.5 ms of a widget's start; decision 0168).
                parameters.otherLinkerFlags += ["-z", "pack-relative-relocs"]
            }
        }
        let build = try packageManager.build(.product(productName), parameters: parameters)
        guard build.succeeded else {
            throw PluginFailure("building \(productName) failed:\n\(build.logText)")
        }
        guard let executable = build.builtArtifacts.first(where: { $0.kind == .executable })?.url else {
            throw PluginFailure("building \(productName) made no executable")
        }

        // The product's own sources and those of the package's targets it depends on (a
        // definition may sit in a library beside the executable).
        let sources = product.mainTarget.directoryURL.path
        var sourceFolders = [sources]
        for target in product.mainTarget.recursiveTargetDependencies where target is SourceModuleTarget {
            let folder = target.directoryURL.path
            if folder.hasPrefix(context.package.directoryURL.path + "/"), !sourceFolders.contains(folder) {
                sourceFolders.append(folder)
            }
        }
        let output: String
        if let explicit = options.output {
            output = explicit
        } else if let host = options.host, !options.isApp {
            output = host + "/Extensions/" + productName + ".appex"
        } else {
            output =
                context.pluginWorkDirectoryURL.appendingPathComponent(productName + (options.isApp ? ".app" : ".appex"))
                .path
        }
        var bundle = ["--executable", executable.path, "--output", output, "--force"]
        for folder in sourceFolders { bundle += ["--sources", folder] }
        if let identifier = options.identifier { bundle += ["--identifier", identifier] }
        if let name = options.name { bundle += ["--name", name] }
        if let key = options.key { bundle += ["--key", key] }
        let entitlements = options.entitlements ?? Self.defaultEntitlements(in: sources, product: productName)
        if let entitlements { bundle += ["--entitlements", entitlements] }

        let (tool, command) = try bundler()
        let process = try Process.run(tool, arguments: command + bundle)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PluginFailure("\(tool.lastPathComponent) exited \(process.terminationStatus) for \(productName)")
        }
    }

    /// The release of Appex this plugin belongs to: it runs an installed `appex` only when
    /// `appex --version` prints the same (kept equal to AppexCommandCore's `appexVersion`; a test
    /// checks).
    static let appexVersion = "0.1.0"

    /// What makes the bundle: the `appex` on the PATH (`Scripts/install.sh` puts one in
    /// `~/.local/bin`) when it is this plugin's release, so that a new package's first bundle
    /// compiles only the product; otherwise `appex-bundler` (`appex bundle` alone), built in
    /// debug in the package's own build folder: what making and signing a bundle needs, not the
    /// rest of `appex`. (As the plugin's declared tool, `appex` itself was built a second time,
    /// as a host tool, with every module it links: docs/decisions/0119.)
    func bundler() throws -> (tool: URL, arguments: [String]) {
        if let installed = Self.installedAppex() {
            return (installed, ["bundle"])
        }
        print("no appex \(Self.appexVersion) on the PATH (Scripts/install.sh installs it): building appex-bundler")
        let build = try packageManager.build(
            .product("appex-bundler"),
            parameters: PackageManager.BuildParameters(configuration: .debug, logging: .concise)
        )
        guard build.succeeded else { throw PluginFailure("building appex-bundler failed:\n\(build.logText)") }
        guard let tool = build.builtArtifacts.first(where: { $0.kind == .executable })?.url else {
            throw PluginFailure("building appex-bundler made no executable")
        }
        return (tool, [])
    }

    /// The first `appex` on the PATH whose `--version` is ``appexVersion``, if there is one.
    static func installedAppex() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("appex")
            guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
            let process = Process()
            process.executableURL = candidate
            process.arguments = ["--version"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let version = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return process.terminationStatus == 0 && version == appexVersion ? candidate : nil
        }
        return nil
    }

    /// The order an extension's start touches the code and data of the Swift runtime, the
    /// standard library and Appex (`Linker/extension-start.order`, recorded by
    /// `Scripts/extension-start-order.sh`), in the checkout of Appex this plugin was built from.
    static let startOrder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Linker/extension-start.order").path

    /// The folder whose `libstdc++.so`, a linker script naming the C++ runtime's static archive,
    /// makes `-lstdc++` (which `-static-stdlib` passes) link the archive when searched first
    /// (`Linker/static-cxx`), in the checkout of Appex this plugin was built from.
    static let staticCxx = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Linker/static-cxx").path

    /// Whether this machine's dynamic loader applies packed relative relocations (DT_RELR):
    /// glibc 2.36 and later. An executable linked with them does not start under an older one.
    static var loaderUnpacksRelocations: Bool {
        var name = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &name, name.count) > 0 else { return false }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let version = text.dropFirst(6).split(separator: ".").compactMap { Int($0) }
        return version.count >= 2 && (version[0], version[1]) >= (2, 36)
    }

    /// `NAME.entitlements` beside the product's sources, when there is one.
    static func defaultEntitlements(in sources: String, product: String) -> String? {
        let path = sources + "/" + product + ".entitlements"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}

/// What the command was asked.
struct Options {
    var product: String?
    var host: String?
    var key: String?
    var output: String?
    var identifier: String?
    var name: String?
    var entitlements: String?
    var isApp: Bool

    static let usage =
        "usage: swift package appex-bundle --product NAME [--host HOST.app] [--key team.key] [--output PATH] [--entitlements FILE] [--identifier ID] [--name NAME], or --app --identifier ID for a host app (--help for more)"

    /// What `--help` prints: what the command does, then every option.
    static let help = """
        OVERVIEW: Build a product in release mode (static Swift runtime) and make its .appex or .app bundle.

        An extension's Info.plist comes from the binding in its sources (AppExtensionPoint.Identifier("HOST", \
        name: "NAME"), or a widget's WidgetBundle); an app's extension points come from its @Definitions. The \
        bundle is made by `appex bundle`, checked as `appex validate` checks it, and moved into place only if \
        valid: each problem is named and the command fails otherwise.

        USAGE: swift package appex-bundle --product NAME [--key FILE] [--host HOST.app | --output PATH] [options]
               swift package appex-bundle --product NAME --app --identifier ID [--key FILE] [--output PATH]

        OPTIONS:
          --product NAME        The executable product to build and bundle (required).
          --app                 Make an .app (a host) instead of an .appex; needs --identifier.
          --host HOST.app       Make the .appex inside this app's Extensions/ folder (and check it against
                                the app's points and groups).
          --output PATH         Where to write the bundle (default: the plugin's work folder, or
                                HOST.app/Extensions/NAME.appex with --host).
          --key FILE            Sign with this team key (make one with `appex keygen --output FILE`).
          --identifier ID       CFBundleIdentifier (default for an extension: the point's host, a dot, the
                                product's name in lower case; a widget outside an app needs one).
          --name NAME           CFBundleName (default: the product's name).
          --entitlements FILE   Entitlements to ship (default: NAME.entitlements beside the sources, if any).
          --help                Show this help.
        """
}

/// A failure the plugin reports in words.
struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
