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
        let processConfiguration = launchConfiguration(for: identity)
        let process: AppExtensionProcess
        do { process = try await AppExtensionProcess(configuration: processConfiguration, discovery: discovery) } catch
        {
            throw Self.explain(
                error,
                extension: state.key.extensionIdentifier,
                kind: state.key.kind,
                deadline: configuration.deadline
            )
        }
        defer { process.invalidate() }
        let request = try configured(
            .snapshot(kind: state.key.kind, family: state.key.family, isPreview: true),
            for: state.key
        )
        let entry = try await entry(request, of: state.key, from: process)
        return WidgetFrame(
            kind: state.key.kind,
            displayName: state.descriptor.displayName,
            family: state.key.family,
            tree: try ViewTree(decoding: entry.tree),
            status: "preview",
            now: Date(timeIntervalSince1970: entry.date)
        )
    }
}
