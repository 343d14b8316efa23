import AppexBuild
import AppexCommandCore
import AppexCore
import AppexSystem
import AppexWidgetHost
import Foundation
import Synchronization

/// `appex widgets serve --watch PACKAGE`: from edit to screen. On each change of the package's
/// sources it runs the incremental `swift build` (debug) and makes again, in place, each installed
/// widget bundle inside the package's folder whose executable is one the build changed: same
/// identifier, point, names, version and entitlements, signed with `key`. The widget host sees another build in an app's
/// `Extensions/` at once and draws the new build's timeline without counting it against the
/// budget; the desktop shows it by itself. Figure `widget.edit-to-screen`
/// (`Scripts/first-widget.sh`): 1,483 ms from a saved one-line change to the tile showing it,
/// against 1,351 ms for the incremental `swift build` of the same kind of change.
struct WidgetWatch: Sendable {
    /// The package's folder.
    let package: String
    let key: SigningKey?
    let host: WidgetHost

    /// Rebuilds and re-bundles after each change, until the task is cancelled.
    func run() async throws(AppexError) {
        let changes = Atomic<UInt64>(0)
        let wakeup = Wakeup()
        let watcher: DirectoryWatcher
        do {
            watcher = try DirectoryWatcher {
                changes.add(1, ordering: .relaxed)
                wakeup.signal()
            }
        } catch {
            throw .fileSystem("watch", package, error)
        }
        defer { watcher.stop() }
        _ = watcher.watch(sourceFolders())
        say("watching \(package)/Sources; each change is built (debug) and its widgets bundled again")
        await rebuildReporting()
        while !Task.isCancelled {
            await wakeup.next()
            if Task.isCancelled { break }
            // Let a save settle: an editor writes, renames and deletes within a few milliseconds.
            var seen = changes.load(ordering: .relaxed)
            while true {
                await wakeup.wait(atMost: .milliseconds(50))
                let now = changes.load(ordering: .relaxed)
                if now == seen { break }
                seen = now
            }
            _ = watcher.watch(sourceFolders())
            await rebuildReporting()
        }
    }

    /// One rebuild; a failure is said and the watch goes on (a manifest saved half-edited, say).
    func rebuildReporting() async {
        do {
            try await rebuild(binPath: try await binPath())
        } catch {
            say("\(error); the widgets stay as they were, and the next change is built again")
        }
    }

    /// The package's `Package.swift` folder and every folder under `Sources/`.
    func sourceFolders() -> Set<String> {
        var folders: Set<String> = [package]
        var pending = [package + "/Sources"]
        while let folder = pending.popLast() {
            guard let entries = try? Syscalls.directoryEntryTypes(folder) else { continue }
            folders.insert(folder)
            for entry in entries where entry.type == .directory && !entry.name.hasPrefix(".") {
                pending.append(folder + "/" + entry.name)
            }
        }
        return folders
    }

    /// Where `swift build` puts the package's debug products.
    func binPath() async throws(AppexError) -> String {
        let outcome = try await swiftBuild(["--show-bin-path"], capturing: true)
        guard outcome.exitCode == 0, let path = outcome.lines.last, !path.isEmpty else {
            throw AppexError(
                .notFound,
                "\(package) is not a Swift package `swift build` can build",
                context: .init(path: package)
            )
        }
        return path
    }

    /// Builds, then bundles again each widget whose executable the build changed.
    func rebuild(binPath: String) async throws(AppexError) {
        let started = ContinuousClock.now
        let built = try await swiftBuild([], capturing: false)
        let buildTime = ContinuousClock.now - started
        guard built.exitCode == 0 else {
            say("swift build failed (\(Self.seconds(buildTime))): the widgets stay as they were")
            return
        }
        let bundling = ContinuousClock.now
        var remade: [String] = []
        // Only the package's own bundles (its Apps/ or Widgets/, say): another package's widget
        // of the same executable name is not this build's.
        for found in try host.discovery.snapshot().extensions
        where AppexBundle.normalized(found.path).hasPrefix(package + "/") {
            let bundle = AppexBundle.load(at: found.path, as: .appExtension)
            guard let name = bundle.info.executableName else { continue }
            let product = binPath + "/" + name
            guard FileManager.default.isExecutableFile(atPath: product),
                !FileManager.default.contentsEqual(atPath: product, andPath: found.path + "/" + name)
            else { continue }
            var recipe = AppexBundle.ExtensionRecipe(executable: product)
            recipe.extensionPoint = bundle.info.extensionPointIdentifier.flatMap(ExtensionPointIdentifier.init)
            recipe.bundleIdentifier = bundle.bundleIdentifier
            recipe.name = bundle.info.name
            recipe.version = bundle.info.version ?? recipe.version
            recipe.shortVersion = bundle.info.shortVersion ?? recipe.shortVersion
            recipe.entitlements = bundle.entitlements
            recipe.signingKey = key
            recipe.replacesExisting = true
            do {
                _ = try AppexBundle.makeExtension(at: found.path, from: recipe)
                remade.append(found.bundleIdentifier ?? name)
            } catch {
                say("cannot bundle \(found.path) again: \(error)")
            }
        }
        let message =
            remade.isEmpty
            ? "built in \(Self.seconds(buildTime)); no widget changed"
            : "built in \(Self.seconds(buildTime)), bundled \(remade.joined(separator: ", ")) in \(Self.seconds(ContinuousClock.now - bundling))"
        say(message)
    }

    /// Runs `swift build` for the package with `arguments`.
    func swiftBuild(_ arguments: [String], capturing: Bool) async throws(AppexError) -> Subprocess.Outcome {
        var command = Subprocess(
            "/usr/bin/env",
            arguments: ["swift", "build", "--package-path", package] + arguments,
            environment: ProcessInfo.processInfo.environment,
            workingDirectory: package
        )
        // The build's words go to standard error: standard output is the window's links.
        command.output = capturing ? .captured : .discarded
        command.errorOutput = .inherited
        do {
            return try await command.run()
        } catch {
            throw AppexError(
                .launchFailed,
                "cannot run swift build for \(package)",
                context: .init(path: package),
                underlyingError: error
            )
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return String(format: "%.1f s", Double(milliseconds) / 1000)
    }

    /// A line on standard error, at once.
    func say(_ line: String) {
        FileHandle.standardError.write(Data(("watch: " + line + "\n").utf8))
    }
}
