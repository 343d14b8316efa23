/// What the tracing example's host and its extension agree on: the point the extension binds
/// to, and the one message the host sends.
public enum TracingContract {
    /// The host app's bundle identifier: the point below is its.
    public static let hostBundleIdentifier = "com.example.tracinghost"
    /// The name of the host's point that ``TracingContract`` extensions bind to.
    public static let pointName = "Traced"
}

/// The host's request: an extension answers it in the span Appex opens for the call.
public struct TracedRequest: Codable, Sendable {
    /// Anything: the extension echoes it.
    public var text: String

    /// A request carrying `text`.
    public init(text: String) {
        self.text = text
    }
}

/// The extension's answer.
public struct TracedReply: Codable, Sendable {
    /// The request's text.
    public var text: String
    /// The names of the `OTEL_*` variables the extension's environment holds, sorted: what its
    /// host passed on (only to an extension entitled to connect out, and never the headers).
    public var telemetryVariables: [String]
    /// Whether the extension bootstrapped swift-otel (it does when given an endpoint).
    public var exportsTraces: Bool

    /// A reply.
    public init(text: String, telemetryVariables: [String], exportsTraces: Bool) {
        self.text = text
        self.telemetryVariables = telemetryVariables
        self.exportsTraces = exportsTraces
    }
}
