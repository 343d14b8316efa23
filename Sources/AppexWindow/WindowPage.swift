public import AppexVocabulary

/// One page of a window: its markup, the updates that replace parts of it while it is open,
/// and the actions its controls post.
///
/// A page builds everything it shows from ``Markup``, so what it shows from others (a contact's
/// name, an extension's display name) is text. Its ``updates()`` stream replaces an element by
/// its `id` on every open copy of the page, through the window's one event stream: no reload,
/// no polling. A stream that opens after a change the page did not see (published while the page
/// loaded, or while its stream reconnected) first replaces the whole page with ``render()``, so
/// `updates()` sends changes only, never the state at its start.
public protocol WindowPage: Sendable {
    /// Where the page is served: `/`, or a path such as `/extensions`.
    var path: String { get }
    /// The page's title.
    var title: String { get }
    /// The page's content, as it is now.
    func render() async throws(AppexError) -> Markup
    /// The page's changes, as they happen: each replaces the element with its `id`.
    func updates() -> AsyncStream<WindowUpdate>
    /// Performs what a control of the page posted (a toggle, a button).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` when the action is refused; the page shows
    ///   its message.
    func perform(_ action: WindowAction) async throws(AppexError)
}

/// A part of a page to replace: the element with id ``id`` becomes ``markup`` (whose root
/// element has the same id).
public struct WindowUpdate: Sendable, Hashable {
    /// The id of the element to replace.
    public var id: String
    /// Its new markup.
    public var markup: Markup

    /// Replaces the element `id` with `markup`.
    public init(id: String, markup: Markup) {
        self.id = id
        self.markup = markup
    }
}

/// What a page's control posted: its action's name and its fields.
public struct WindowAction: Sendable, Hashable {
    /// The action (`data-action` on the control).
    public var name: String
    /// The control's fields (`data-*` on the control, and its value).
    public var fields: [String: String]

    /// An action `name` with `fields`.
    public init(name: String, fields: [String: String] = [:]) {
        self.name = name
        self.fields = fields
    }
}

extension WindowAction {
    /// A toggle's `set-enabled`: the bundle it names and whether it is now on; `page` names the
    /// page in the refusal of anything else.
    func enablement(on page: String) throws(AppexError) -> (bundle: String, enabled: Bool) {
        guard name == "set-enabled", let bundle = fields["bundle"], let checked = fields["checked"],
            ["true", "false"].contains(checked)
        else {
            throw AppexError(
                .invalidValue,
                "\(page) takes set-enabled with a bundle and checked=true or false, not \(name)",
                context: AppexError.Context(key: name)
            )
        }
        return (bundle, checked == "true")
    }
}
