import AppexCore
import AppexHost
import AppexVocabulary
import AppexWidgetKit
import Foundation

extension WidgetHost {
    /// Performs the intent of the control `index` of `state`'s entry at `date` (a tap on an
    /// interactive widget's `Button(intent:)` or `Toggle(isOn:intent:)`), in the widget's
    /// extension process, launched and sandboxed as for a timeline; then asks for the widget's
    /// next timeline, as WidgetKit reloads an interactive widget after its intent.
    ///
    /// Controls are numbered in the order the renderers draw them (the HTML renderer's
    /// `data-intent`). Only a control the current entry shows can be performed: the intent and
    /// its parameters are the widget's own, never the caller's.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` (no such control now), `refused` (the
    ///   widget's extension is not enabled), the launch's errors, and the intent's
    ///   (`intent-failed`, with its message).
    public func performIntent(_ index: Int, of state: WidgetState, at date: Date? = nil) async throws(AppexError) {
        let date = date ?? configuration.environment.clock.now
        let context = AppexError.Context(bundleIdentifier: state.key.extensionIdentifier, widgetKind: state.key.kind)
        let controls = (state.entry(at: date)?.tree ?? state.placeholder)?.controls ?? []
        guard controls.indices.contains(index) else {
            throw AppexError(
                .notFound,
                "widget \(state.key.kind) shows \(controls.count) control\(controls.count == 1 ? "" : "s") now, not a control \(index)",
                context: context
            )
        }
        guard state.discovered.state == .enabled, let identity = state.discovered.identity else {
            throw AppexError(
                .refused,
                "widget \(state.key.kind) is \(state.discovered.state.rawValue): its intents do not run",
                context: context
            )
        }
        let processConfiguration = launchConfiguration(for: identity)
        let process = try await AppExtensionProcess(configuration: processConfiguration, discovery: discovery)
        defer { Self.endInBackground([process]) }
        let reply = try await ask(
            process,
            .performIntent(kind: state.key.kind, control: controls[index]),
            kind: state.key.kind
        )
        guard case .performed = reply else {
            throw Self.unexpectedReply(
                "an intent's completion",
                bundle: identity.bundleIdentifier,
                kind: state.key.kind
            )
        }
        configuration.logger.info("intent performed", metadata: ["widget": "\(state.key)", "control": "\(index)"])
        try WidgetCenter.writeReloadRequest(
            WidgetReloadRequest(
                kind: state.key.kind,
                app: state.app,
                requestedAt: date.timeIntervalSince1970,
                byPerson: true
            ),
            home: configuration.environment.home
        )
    }
}
