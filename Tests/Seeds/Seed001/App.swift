// The app's own pieces that seed 001's listings use and do not print.
import AppexExtension
import Distributed

/// The point's contract for translators (the host app's SDK, in the document's words).
public protocol MyTextTransformerExtension: AppExtension {
    /// Translates `text`.
    func translate(text: String) -> Text
}

/// A translation: text.
public typealias Text = String

/// Extensions that export an object, as `ExampleConfiguration` serves.
protocol ExampleExtension: AppExtension {}

/// The interface the exported object serves.
@Resolvable
protocol Greeter: DistributedActor where ActorSystem == IPCActorSystem {
    distributed func greet(_ name: String) -> String
}

typealias HostAppInterface = any Greeter

distributed actor GreeterService: Greeter {
    typealias ActorSystem = IPCActorSystem
    distributed func greet(_ name: String) -> String { "Hello, \(name)" }
}

extension ExampleConfiguration {
    /// The object `accept(connection:)` exports.
    var myCustomObject: GreeterService { GreeterService(actorSystem: AppExtensionContext.actorSystem) }
}

/// The translator: the seed's extension, with a phrasebook for a model.
extension MyAppExtension: MyTextTransformerExtension {
    func translate(text: String) -> Text {
        ["hello": "bonjour", "thank you": "merci"][text.lowercased()] ?? "[\(text)]"
    }
}
