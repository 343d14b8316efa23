import AppexCore
import AppexHost
import AppexWidgetKit
import Foundation

extension WidgetHost {
    /// The widget's snapshot, as a widget gallery shows it: launches the extension and asks for
    /// one entry with `isPreview` set, quickly, with sample data. A preview is not a timeline:
    /// it is not stored and takes nothing from the reload budget.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``: `refused` (the widget is not enabled), `launchFailed`,
    ///   `interrupted`, `deadlineExceeded`, `protocolViolation`, `viewTreeTooLarge`, as for a
    ///   timeline.
    public func preview(_ state: WidgetState) async throws(AppexError) -> WidgetFrame {
        guard state.discovered.state == .enabled, let identity = state.discovered.identity else {
            throw AppexError(
                .refused,
                "widget \(state.key.kind) of \(state.key.extensionIdentifier) is \(state.discovered.state.rawValue): only enabled widgets are launched",
                context: AppexError.Context(bundleIdentifier: state.key.extensionIdentifier, widgetKind: state.key.kind)
            )
        }
        let request = try configured(
            .snapshot(kind: state.key.kind, family: state.key.family, isPreview: true),
            for: state.key
        )
        let entry = try await launchedEntry(request, of: state.key, identity: identity)
        return WidgetFrame(
            kind: state.key.kind,
            displayName: state.descriptor.displayName,
            family: state.key.family,
            tree: try ViewTree(decoding: entry.tree),
            status: "preview",
            now: Date(timeIntervalSince1970: entry.date)
        )
    }

    /// The entry `key`'s widget answers `request` with, from a launch of its own (ended after):
    /// what a preview and a Live Activity's drawing ask once, outside any timeline.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError``: the launch's and the entry's errors, naming the
    ///   extension and the kind.
    func launchedEntry(
        _ request: WidgetRequest,
        of key: WidgetKey,
        identity: AppExtensionIdentity
    ) async throws(AppexError) -> EncodedEntry {
        let process: AppExtensionProcess
        do {
            process = try await AppExtensionProcess(
                configuration: launchConfiguration(for: identity),
                discovery: discovery
            )
        } catch {
            throw Self.explain(
                error,
                extension: key.extensionIdentifier,
                kind: key.kind,
                deadline: configuration.deadline
            )
        }
        defer { process.invalidate() }
        return try await entry(request, of: key, from: process)
    }
}
