public import AppexWidgetHost
import Synchronization

/// A page that shows a UI extension's scene (ExtensionKit's `EXHostViewController`, in a
/// window): the extension's view tree drawn by the host, confined to its frame, with every
/// interaction sent back to the extension and the scene drawn again.
///
/// ```swift
/// let scene = try await ExtensionScene(process: process, sceneID: "translate")
/// let window = try WindowServer(pages: [ScenePage(scene: scene, path: "/translate")])
/// ```
///
/// The page never holds markup or script the extension wrote: the extension sends a view tree,
/// and the widget host's renderer turns it into escaped HTML, whose sizes and colours the
/// window's own script applies. The frame clips whatever does not fit.
public final class ScenePage: WindowPage {
    /// Where the page is served.
    public let path: String
    /// The page's title: the extension's name.
    public let title: String
    private let panel: SceneFrame

    /// A page at `path` showing `scene`.
    public init(scene: ExtensionScene, path: String) {
        self.path = path
        title = scene.process.configuration.identity.localizedName
        panel = SceneFrame(scene: scene, title: title)
    }

    /// The scene as the extension last drew it.
    public func render() async throws(AppexError) -> Markup { panel.markup() }

    /// The scene each time it is drawn again.
    public func updates() -> AsyncStream<WindowUpdate> { panel.updates() }

    /// `scene`: an event of one of the scene's controls (`control`, `event`: tap, toggle, text
    /// or choose, and `value`), sent to the extension.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` for a malformed event; the
    ///   extension's refusal.
    public func perform(_ action: WindowAction) async throws(AppexError) {
        guard action.name == "scene" else {
            throw AppexError(
                .invalidValue,
                "a scene page takes scene events, not \(action.name)",
                context: .init(key: action.name)
            )
        }
        try await panel.perform(action)
    }
}

/// A scene in a page: the frame a host puts where the scene goes, in a page of its own (a
/// contact's detail with its translator's scene, say). The page forwards the `scene` actions it
/// receives to ``perform(_:)`` and sends the new ``markup()`` under ``id``.
public final class SceneFrame: Sendable {
    /// The scene shown.
    public let scene: ExtensionScene
    /// Its title.
    public let title: String
    /// The frame's element id.
    public let id: String
    private let renderer: HTMLRenderer
    private let watchers = Mutex<[Int: AsyncStream<WindowUpdate>.Continuation]>([:])
    private let nextWatcher = Mutex(0)

    /// The frame of `scene`, titled `title`.
    public init(scene: ExtensionScene, title: String) {
        self.scene = scene
        self.title = title
        id = ElementID.make("scene", for: scene.process.configuration.identity.bundleIdentifier + "/" + scene.sceneID)
        var renderer = HTMLRenderer()
        renderer.styleAttribute = "data-style"
        renderer.linksThroughHost = true
        self.renderer = renderer
    }

    /// The scene in its frame, which clips it.
    public func markup() -> Markup {
        .element(
            "section",
            ["id": id, "class": "scene", "data-scene": id],
            [.trusted(renderer.fragment(scene.frame(title: title)))]
        )
    }

    /// The frame each time the scene is drawn again.
    public func updates() -> AsyncStream<WindowUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: WindowUpdate.self)
        let number = nextWatcher.withLock { value in
            defer { value += 1 }
            return value
        }
        watchers.withLock { $0[number] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.removeValue(forKey: number) } }
        return stream
    }

    /// Sends the event `action` describes (a `scene` action of the window's script) to the
    /// scene; every open ``updates()`` stream gets its new markup.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidValue` for a malformed event; the
    ///   extension's refusal.
    public func perform(_ action: WindowAction) async throws(AppexError) {
        let fields = action.fields
        guard let control = fields["control"].flatMap({ Int($0) }), let kind = fields["event"] else {
            throw AppexError(.invalidValue, "a scene event names its control and its kind")
        }
        let event: ExtensionScene.Event
        switch kind {
        case "tap": event = .tap(control: control)
        case "toggle": event = .toggle(control: control)
        case "text": event = .text(control: control, fields["value"] ?? "")
        case "choose":
            guard let option = fields["value"].flatMap({ Int($0) }) else {
                throw AppexError(.invalidValue, "a choice names its option by number")
            }
            event = .choose(control: control, option: option)
        default:
            throw AppexError(.invalidValue, "a scene event is tap, toggle, text or choose, not \(kind)")
        }
        try await scene.send(event)
        let update = WindowUpdate(id: id, markup: markup())
        for watcher in watchers.withLock({ Array($0.values) }) { watcher.yield(update) }
    }
}
