/// A button, as SwiftUI's: in a scene, `Button(action:)` runs its action in the extension and
/// draws the scene again; in an interactive widget, `Button(intent:)` performs an ``AppIntent``
/// in the widget's extension process, and the widget host then asks for a new timeline.
public struct Button<Label: View>: View {
    enum Kind {
        case intent(IntentControl)
        case action(() -> Void)
    }

    let kind: Kind
    let label: Label

    /// A button drawn as `label` that performs `intent`.
    public init<Intent: AppIntent>(intent: Intent, @ViewBuilder label: () -> Label) {
        kind = .intent(IntentControl(.button, intent))
        self.label = label()
    }

    /// A button drawn as `label` that runs `action` (in a scene).
    public init(action: @escaping () -> Void, @ViewBuilder label: () -> Label) {
        kind = .action(action)
        self.label = label()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let label = ViewResolver.node(of: view.label)
        switch view.kind {
        case .intent(let control):
            resolution.node = .control(control, label: label)
        case .action(let action):
            let index = SceneResolution.current?.register(.action(action)) ?? -1
            resolution.node = .sceneControl(SceneControl(index: index, kind: .button), label: label)
        }
    }
}

extension Button where Label == Text {
    /// A button titled `title` that performs `intent`.
    public init<S: StringProtocol, Intent: AppIntent>(_ title: S, intent: Intent) {
        kind = .intent(IntentControl(.button, intent))
        label = Text(title)
    }

    /// A button titled `title` that runs `action` (in a scene).
    public init<S: StringProtocol>(_ title: S, action: @escaping () -> Void) {
        kind = .action(action)
        label = Text(title)
    }
}

/// A switch, as SwiftUI's `Toggle`: in a scene, `Toggle(isOn: $flag)` sets its binding and
/// draws the scene again; in an interactive widget, `Toggle(isOn:intent:)` is drawn on or off
/// from the entry and performs an ``AppIntent`` that changes what the next timeline shows.
public struct Toggle<Label: View>: View {
    enum Kind {
        case intent(IntentControl)
        case binding(Binding<Bool>)
    }

    let kind: Kind
    let label: Label

    /// A switch drawn as `label`, on when `isOn`, that performs `intent`.
    public init<Intent: AppIntent>(isOn: Bool, intent: Intent, @ViewBuilder label: () -> Label) {
        kind = .intent(IntentControl(isOn ? .toggleOn : .toggleOff, intent))
        self.label = label()
    }

    /// A switch drawn as `label` that shows and sets `isOn` (in a scene).
    public init(isOn: Binding<Bool>, @ViewBuilder label: () -> Label) {
        kind = .binding(isOn)
        self.label = label()
    }

    /// Never called.
    public var body: Never { fatalNever() }
    /// Implementation detail: how the resolver reads this view.
    public static func _makeNode(of view: Self, in resolution: inout _ViewResolution) {
        let label = ViewResolver.node(of: view.label)
        switch view.kind {
        case .intent(let control):
            resolution.node = .control(control, label: label)
        case .binding(let isOn):
            let index = SceneResolution.current?.register(.toggle(isOn)) ?? -1
            resolution.node = .sceneControl(
                SceneControl(index: index, kind: .toggle(isOn: isOn.wrappedValue)),
                label: label
            )
        }
    }
}

extension Toggle where Label == Text {
    /// A switch titled `title`, on when `isOn`, that performs `intent`.
    public init<S: StringProtocol, Intent: AppIntent>(_ title: S, isOn: Bool, intent: Intent) {
        kind = .intent(IntentControl(isOn ? .toggleOn : .toggleOff, intent))
        label = Text(title)
    }

    /// A switch titled `title` that shows and sets `isOn` (in a scene).
    public init<S: StringProtocol>(_ title: S, isOn: Binding<Bool>) {
        kind = .binding(isOn)
        label = Text(title)
    }
}

/// A control of a view tree and the intent it performs, as it crosses to the host: the intent's
/// type (its mangled name, which the extension looks up again) and its parameters as JSON.
package struct IntentControl: Codable, Hashable, Sendable {
    /// What the control looks like.
    package enum Kind: UInt8, Codable, Sendable {
        case button, toggleOn, toggleOff
    }

    package var kind: Kind
    /// The intent's type, as `_mangledTypeName` gives it.
    package var type: String
    /// Its `Codable` form, as JSON.
    package var arguments: [UInt8]

    package init(kind: Kind, type: String, arguments: [UInt8]) {
        self.kind = kind
        self.type = type
        self.arguments = arguments
    }

    init<Intent: AppIntent>(_ kind: Kind, _ intent: Intent) {
        self.kind = kind
        type = _mangledTypeName(Intent.self) ?? String(reflecting: Intent.self)
        // An intent that cannot be encoded crosses without parameters: performing it then
        // fails by name in the extension.
        arguments = (try? JSONEncoder().encode(intent)).map { Array($0) } ?? []
    }

    /// Decodes and performs the intent in this process (the widget's extension).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `notFound` when the type is no intent of this
    ///   extension, `coding` when its parameters do not decode, `intentFailed` when `perform()`
    ///   throws.
    package func perform() async throws(AppexError) {
        guard let found = _typeByName(type), let intentType = found as? any AppIntent.Type else {
            throw AppexError(.notFound, "this extension has no intent of type \(type)")
        }
        try await Self.perform(intentType, arguments: arguments)
    }

    private static func perform<Intent: AppIntent>(_ type: Intent.Type, arguments: [UInt8]) async throws(AppexError) {
        let intent: Intent
        do { intent = try JSONDecoder().decode(Intent.self, from: Data(arguments)) } catch {
            throw AppexError(
                .coding,
                "the parameters of intent \(Intent.title) (\(String(reflecting: Intent.self))) do not decode: \(error)"
            )
        }
        try await performChain(intent)
    }

    /// Performs `intent`, then each intent its result opens (``OpensIntent``), at most 8 in all:
    /// a chain that goes on opening is cut there and named.
    private static func performChain(_ first: any AppIntent) async throws(AppexError) {
        var next: (any AppIntent)? = first
        var performed = 0
        while let intent = next {
            guard performed < 8 else {
                throw AppexError(
                    .intentFailed,
                    "intent \(Swift.type(of: first).title) opened 8 intents in a row; \(Swift.type(of: intent).title) was not performed"
                )
            }
            let result: any IntentResult
            do { result = try await intent.perform() } catch {
                throw AppexError(
                    .intentFailed,
                    "intent \(Swift.type(of: intent).title) failed: \(error)",
                    underlyingError: error
                )
            }
            performed += 1
            next = (result as? IntentResultContainer)?.opened
        }
    }
}
