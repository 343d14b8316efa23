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
