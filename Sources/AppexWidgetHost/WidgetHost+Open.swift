import AppexCore
import AppexSystem
import AppexVocabulary
import AppexWidgetKit
import Foundation

extension WidgetHost {
    /// What a tap on a widget opens: its containing app, with the URL.
    public struct OpenedApp: Sendable {
        /// The app opened.
        public let app: String
        /// The URL it was opened with.
        public let url: URL
        /// The app's process.
        public let processIdentifier: Int32
    }

    /// Opens `state`'s containing app with `url` (a `widgetURL` or `Link` destination), as a tap
    /// on the widget does: runs the app's executable with `APPEX_OPEN_URL` set to the URL and
    /// `--open-url URL` as its arguments. The app reads it with `onOpenURL(perform:)`.
    ///
    /// - Parameters:
    ///   - url: the URL; default: the current entry's `widgetURL`.
    ///   - state: the widget, as ``states(now:family:)`` or ``refresh(now:family:)`` gave it.
    ///   - date: the moment whose entry gives the default URL; now by default (the environment's clock).
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` (no containing app, or no URL to open), `refused`
    ///   (a `javascript:`, `data:`, `vbscript:` or `file:` URL), `invalidBundle` (the app has
    ///   problems), `launchFailed`.
    @discardableResult
    public func open(_ url: URL? = nil, from state: WidgetState, at date: Date? = nil) throws(AppexError) -> OpenedApp {
        let date = date ?? configuration.environment.clock.now
        let context = AppexError.Context(bundleIdentifier: state.key.extensionIdentifier, widgetKind: state.key.kind)
        guard let appPath = state.app else {
            throw AppexError(
                .notFound,
                "widget \(state.key.kind) is not inside an app, so a tap opens nothing",
                context: context
            )
        }
        guard let url = url ?? state.entry(at: date)?.tree?.widgetURL.flatMap(URL.init(string:)) else {
            throw AppexError(
                .notFound,
                "widget \(state.key.kind) has no widgetURL in its current entry",
                context: context
            )
        }
        if let scheme = url.scheme?.lowercased(), ["javascript", "data", "vbscript", "file"].contains(scheme) {
            throw AppexError(.refused, "widget \(state.key.kind) may not open a \(scheme): URL", context: context)
        }
        let app = AppexBundle.load(at: appPath, as: .hostApp)
        guard app.isValid, let executable = app.info.executableName else {
            throw AppexError(
                .invalidBundle,
                "the app \(appPath) cannot be opened",
                context: AppexError.Context(path: appPath, widgetKind: state.key.kind),
                problems: app.problems
            )
        }
        var environment = ProcessInfo.processInfo.environment
        environment["APPEX_OPEN_URL"] = url.absoluteString
        for (name, value) in configuration.environment.variables { environment[name] = value }
        let opened = Subprocess(
            appPath + "/" + executable,
            arguments: ["--open-url", url.absoluteString],
            environment: environment,
            workingDirectory: FileManager.default.currentDirectoryPath
        )
        let processIdentifier: Int32
        do { processIdentifier = try opened.startWaiting() } catch {
            throw AppexError(
                .launchFailed,
                "cannot open \(appPath) with \(url.absoluteString)",
                context: AppexError.Context(path: appPath, widgetKind: state.key.kind),
                underlyingError: error
            )
        }
        return OpenedApp(app: appPath, url: url, processIdentifier: processIdentifier)
    }
}
