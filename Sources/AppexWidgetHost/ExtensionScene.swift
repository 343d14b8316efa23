public import AppexCore
public import AppexHost
public import AppexWidgetKit
import Synchronization

/// A scene a UI extension presents, open in a host: ExtensionKit's `EXHostViewController`
/// without the view. The extension draws it; the host shows ``tree`` and sends every
/// interaction back with ``send(_:)``, which returns the tree drawn again.
///
/// ```swift
/// let scene = try await ExtensionScene(process: process, sceneID: "translate")
/// let html = HTMLRenderer().fragment(scene.frame(title: "Translate"))
/// try await scene.send(.choose(control: 0, option: 2))
/// ```
///
/// Only a point declared with `UserInterface(true)` (`EXPresentsUserInterface`) has scenes; a
/// scene of another point is refused, naming it. A scene shares the process's connection with
/// its other messages and ends with ``close()`` or with the process.
public final class ExtensionScene: Sendable {
    /// What a person did to one of the scene's controls, numbered as the renderers draw them
    /// (`data-scene-control` in HTML).
    public enum Event: Sendable, Hashable {
        /// Tapped the button `control`.
        case tap(control: Int)
        /// Flipped the switch `control`.
        case toggle(control: Int)
        /// Typed `text` into the text field `control`.
        case text(control: Int, String)
        /// Chose option `option` of the picker `control`.
        case choose(control: Int, option: Int)
    }

    /// The process that draws the scene.
    public let process: AppExtensionProcess
    /// The scene's identifier.
    public let sceneID: String
    private let number: UInt64
    private let current: Mutex<ViewTree>

    /// Opens the scene `sceneID` of the extension `process` runs, passing it `parameters` (what
    /// it shows, such as a note to translate), and reads its first tree.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `refused` when the extension's point does not
    ///   present user interface (its name and the key to set); the extension's errors (`not-found`
    ///   for a scene it does not have, naming those it has); `protocolViolation` for an answer
    ///   that is no scene.
    public init(
        process: AppExtensionProcess,
        sceneID: String,
        parameters: [String: String] = [:]
    ) async throws(AppexError) {
        let identity = process.configuration.identity
        let host = AppexBundle.load(at: process.configuration.hostBundlePath, as: .hostApp)
        let point = host.extensionPoints.first { $0.identifier == identity.extensionPointIdentifier }
        guard point?.presentsUserInterface == true else {
            throw AppexError(
                .refused,
                "extension point \(identity.extensionPointIdentifier) does not present user interface (UserInterface(false), \(ExtensionPointDeclaration.Key.presentsUserInterface) not true), so \(identity.bundleIdentifier) shows no scene \(sceneID)",
                context: AppexError.Context(bundleIdentifier: identity.bundleIdentifier, key: sceneID)
            )
        }
        self.process = process
        self.sceneID = sceneID
        let (scene, tree) = try await Self.ask(process, .open(sceneID: sceneID, parameters: parameters))
        number = scene
        current = Mutex(try ViewTree(decoding: tree))
    }

    /// The scene as the extension last drew it.
    public var tree: ViewTree { current.withLock { $0 } }

    /// The scene as a renderer draws it, titled `title`.
    public func frame(title: String) -> WidgetFrame {
        WidgetFrame(kind: sceneID, displayName: title, family: .systemLarge, tree: tree)
    }

    /// Sends `event` to the scene, which handles it and draws itself again; returns the new tree.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` the extension's refusal (`not-found` for a
    ///   control it does not show, `invalid-value` for an event the control does not take), or
    ///   the call's errors.
    @discardableResult
    public func send(_ event: Event) async throws(AppexError) -> ViewTree {
        let request: SceneRequest =
            switch event {
            case .tap(let control): .event(scene: number, control: control, .tap)
            case .toggle(let control): .event(scene: number, control: control, .toggle)
            case .text(let control, let text): .event(scene: number, control: control, .text(text))
            case .choose(let control, let option): .event(scene: number, control: control, .choose(option))
            }
        let tree = try ViewTree(decoding: try await Self.ask(process, request).tree)
        current.withLock { $0 = tree }
        return tree
    }

    /// Closes the scene in the extension.
    public func close() async {
        _ = try? await process.call(SceneRequest.close(scene: number).encoded())
    }

    /// Sends `request`; the scene's number and tree, or the extension's refusal thrown with its
    /// own code and the extension's name.
    private static func ask(
        _ process: AppExtensionProcess,
        _ request: SceneRequest
    ) async throws(AppexError)
        -> (scene: UInt64, tree: [UInt8])
    {
        let bytes = try await process.call(request.encoded())
        switch try SceneReply(decoding: bytes) {
        case .tree(let scene, let tree):
            return (scene, tree)
        case .refused(let code, let message):
            let name = process.configuration.identity.bundleIdentifier
            throw AppexError(
                AppexError.Code(code),
                "\(name): \(message)",
                context: AppexError.Context(bundleIdentifier: name)
            )
        }
    }
}
