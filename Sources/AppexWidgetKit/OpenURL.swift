internal import AppexSystem

/// The URL the widget host opened this app with, when a widget was tapped: its `widgetURL` or
/// the destination of the `Link` tapped. The Linux counterpart of SwiftUI's `onOpenURL`.
///
/// The widget host opens the containing app by running its executable with the URL in the
/// `APPEX_OPEN_URL` variable (and `--open-url URL` as its arguments, for apps that read
/// arguments). Call this early in `main`:
///
/// ```swift
/// if onOpenURL(perform: { url in showContact(id: url.lastPathComponent) }) { return }
/// ```
///
/// - Returns: `true` when the process was opened with a URL and `action` ran.
@discardableResult
public func onOpenURL(perform action: (URL) throws -> Void) rethrows -> Bool {
    guard let url = OpenedURL.current else { return false }
    try action(url)
    return true
}

/// Where an app's opened URL comes from.
package enum OpenedURL {
    /// The variable the widget host sets.
    package static let variable = "APPEX_OPEN_URL"
    /// The argument the widget host passes, before the URL.
    package static let argument = "--open-url"

    /// The URL the process was opened with, if any.
    package static var current: URL? {
        if let text = ProcessInfo.processInfo.environment[variable], let url = URL(string: text) { return url }
        let arguments = CommandLine.arguments
        if let index = arguments.firstIndex(of: argument), index + 1 < arguments.count {
            return URL(string: arguments[index + 1])
        }
        return nil
    }
}

/// What `@Environment(\.openURL)` gives a view, as SwiftUI's `OpenURLAction`: called with a URL,
/// it runs its handler.
///
/// A widget's views are drawn once into a tree, so nothing in them runs when a person taps: a
/// widget opens a URL with `Link` or `.widgetURL`, which the widget host checks and opens. The
/// default action therefore opens nothing: it says so on standard error and returns
/// `.discarded`. Set your own with `.environment(\.openURL, OpenURLAction { url in … })`.
public struct OpenURLAction: Sendable {
    /// What the handler did with a URL.
    public struct Result: Sendable, Hashable {
        let kind: UInt8
        /// The handler opened it.
        public static let handled = Result(kind: 0)
        /// The handler did nothing with it.
        public static let discarded = Result(kind: 1)
        /// The handler leaves it to the system.
        public static let systemAction = Result(kind: 2)
        /// The handler leaves `url` to the system in its place.
        public static func systemAction(_ url: URL) -> Result { systemAction }
    }

    let handler: @Sendable (URL) -> Result

    /// An action that calls `handler`.
    public init(handler: @escaping @Sendable (URL) -> Result) { self.handler = handler }

    /// Opens `url` through the handler.
    public func callAsFunction(_ url: URL) { _ = handler(url) }

    /// Opens `url` through the handler; `completion` learns whether it was handled.
    public func callAsFunction(_ url: URL, completion: @escaping @Sendable (Bool) -> Void) {
        completion(handler(url) == .handled)
    }

    /// The default action: opens nothing, and says why on standard error.
    static let unavailable = OpenURLAction { url in
        Terminal.writeStandardError(
            "openURL(\(url)): a widget's views open URLs with Link or .widgetURL; nothing was opened\n"
        )
        return .discarded
    }
}

extension EnvironmentValues {
    /// The action that opens URLs (``OpenURLAction``).
    public var openURL: OpenURLAction {
        get { openURLAction ?? .unavailable }
        set { openURLAction = newValue }
    }
}
