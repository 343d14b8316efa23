public import AppexExtension
import Synchronization

/// A scene a UI extension presents in its host's window, as ExtensionKit's
/// `AppExtensionScene`: a view, with `@State`, `Button`, `Toggle`, `TextField` and `Picker`,
/// drawn in the extension and shown by the host, which sends every interaction back.
public protocol AppExtensionScene {
    /// The scene's identifier, which the host names when it opens it.
    var sceneID: String { get }
    /// Implementation detail: makes one open copy of the scene. Neither call nor implement it.
    func _makeInstance(_ parameters: SceneParameters) -> _SceneInstance
}

/// What the host passed when it opened a scene (`ExtensionScene(process:sceneID:parameters:)`):
/// text values by name, such as the note a translator shows.
public struct SceneParameters: Sendable, Hashable {
    /// Every parameter.
    public let values: [String: String]

    /// Parameters of `values`.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// The parameter `name`, if the host passed it.
    public subscript(_ name: String) -> String? { values[name] }
}

/// A scene made of a view, as ExtensionKit's `PrimitiveAppExtensionScene`.
///
/// ```swift
/// PrimitiveAppExtensionScene(id: "translate") { TranslateView() }
/// ```
public struct PrimitiveAppExtensionScene<Content: View>: AppExtensionScene {
    /// The scene's identifier.
    public let sceneID: String
    let content: (SceneParameters) -> Content

    /// A scene `id` whose view is `content`, made once for each time the host opens it.
    public init(id: String, @ViewBuilder content: @escaping () -> Content) {
        sceneID = id
        self.content = { _ in content() }
    }

    /// A scene `id` whose view `content` makes from what the host passed when it opened it.
    public init(id: String, @ViewBuilder content: @escaping (SceneParameters) -> Content) {
        sceneID = id
        self.content = content
    }

    /// Implementation detail: one open copy of the scene.
    public func _makeInstance(_ parameters: SceneParameters) -> _SceneInstance { _SceneInstance(content(parameters)) }
}

/// The configuration of a UI extension, as ExtensionKit's `AppExtensionSceneConfiguration`:
/// its scenes, and the configuration that serves its other messages (or none).
///
/// ```swift
/// var configuration: AppExtensionSceneConfiguration {
///     AppExtensionSceneConfiguration(
///         PrimitiveAppExtensionScene(id: "translate") { TranslateView() },
///         configuration: ConnectionHandler { (request: TranslateRequest) in … }
///     )
/// }
/// ```
public struct AppExtensionSceneConfiguration: AppExtensionConfiguration {
    private let scenes: UncheckedScenes
    private let configuration: (any AppExtensionConfiguration)?

    /// `scene`, and `configuration` for the extension's other messages.
    public init(_ scene: some AppExtensionScene, configuration: some AppExtensionConfiguration) {
        scenes = UncheckedScenes([scene])
        self.configuration = configuration
    }

    /// `scenes`, and no other messages.
    public init(_ scenes: any AppExtensionScene...) {
        self.scenes = UncheckedScenes(scenes)
        configuration = nil
    }

    /// Serves the scenes' messages on `connection`, and the others as `configuration` says.
    public func accept(connection: HostConnection) -> Bool {
        let host = SceneHost(scenes.scenes)
        connection.interceptor = { bytes in
            guard SceneRequest.isScene(bytes) else { return nil }
            do throws(AppexError) {
                return try host.answer(try SceneRequest(decoding: bytes))
            } catch {
                // The refusal crosses with its code, so the host can say what it was.
                return SceneReply.refused(code: error.code.name, message: error.message).encoded()
            }
        }
        guard let configuration else {
            connection.resume()
            return true
        }
        return configuration.accept(connection: connection)
    }
}

/// Scenes are values made on the extension's main path and used by one request at a time.
private struct UncheckedScenes: @unchecked Sendable {
    let scenes: [any AppExtensionScene]
    init(_ scenes: [any AppExtensionScene]) { self.scenes = scenes }
}

/// The open scenes of one connection.
final class SceneHost: Sendable {
    /// How many scenes one host may have open at once.
    static let limit = 64

    private struct State: @unchecked Sendable {  // the scenes and instances are used under the lock
        var scenes: [any AppExtensionScene]
        var open: [UInt64: _SceneInstance] = [:]
        var next: UInt64 = 1
    }

    private let state: Mutex<State>

    init(_ scenes: [any AppExtensionScene]) { state = Mutex(State(scenes: scenes)) }

    /// Answers one request: a scene's number and tree, or nothing for a close.
    func answer(_ request: SceneRequest) throws(AppexError) -> [UInt8] {
        try state.withLock { state throws(AppexError) -> [UInt8] in
            switch request {
            case .open(let sceneID, let parameters):
                guard let scene = state.scenes.first(where: { $0.sceneID == sceneID }) else {
                    let known = state.scenes.map(\.sceneID).joined(separator: ", ")
                    throw AppexError(
                        .notFound,
                        "this extension has no scene \(sceneID) (it has: \(known.isEmpty ? "none" : known))",
                        context: AppexError.Context(key: sceneID)
                    )
                }
                guard state.open.count < Self.limit else {
                    throw AppexError(.refused, "this extension has \(Self.limit) scenes open already; close one first")
                }
                let number = state.next
                state.next += 1
                let instance = scene._makeInstance(SceneParameters(parameters))
                state.open[number] = instance
                return SceneReply.tree(scene: number, tree: try instance.draw()).encoded()
            case .event(let number, let control, let event):
                guard let instance = state.open[number] else {
                    throw AppexError(.notFound, "no scene \(number) is open")
                }
                try instance.handle(event, on: control)
                return SceneReply.tree(scene: number, tree: try instance.draw()).encoded()
            case .close(let number):
                state.open[number] = nil
                return []
            }
        }
    }
}

/// Implementation detail of ``AppExtensionScene``: one open copy of a scene, its view, its
/// state, and the handlers of the controls it last drew.
public final class _SceneInstance {
    private let resolve: (SceneResolution) -> ViewNode
    private let store = SceneStateStore()
    private var handlers: [SceneResolution.Handler] = []

    init<Content: View>(_ view: Content) {
        resolve = { resolution in
            SceneResolution.$current.withValue(resolution) {
                ViewResolver.resolve(view, environment: EnvironmentValues(widgetFamily: .systemLarge))
            }
        }
    }

    /// Draws the scene: its tree, encoded; its controls' handlers kept for the next event.
    func draw() throws(AppexError) -> [UInt8] {
        let resolution = SceneResolution(store: store)
        let root = resolve(resolution)
        handlers = resolution.handlers
        store.drawn()
        return try ViewTree(root: root).encoded()
    }

    /// Runs what control `index` does for `event`.
    func handle(_ event: SceneEvent, on index: Int) throws(AppexError) {
        guard handlers.indices.contains(index) else {
            throw AppexError(.notFound, "the scene shows \(handlers.count) controls, not a control \(index)")
        }
        switch (handlers[index], event) {
        case (.action(let action), .tap):
            action()
        case (.toggle(let isOn), .toggle):
            isOn.wrappedValue.toggle()
        case (.text(let text), .text(let value)):
            guard value.utf8.count <= 16 * 1024 else {
                throw AppexError(.invalidValue, "a text field takes at most 16 KiB of text")
            }
            text.wrappedValue = value
        case (.choice(let setters), .choose(let option)):
            guard setters.indices.contains(option) else {
                throw AppexError(.invalidValue, "the picker has \(setters.count) options, not an option \(option)")
            }
            setters[option]()
        default:
            throw AppexError(.invalidValue, "control \(index) does not take a \(event) event")
        }
    }
}
