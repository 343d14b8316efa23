// ContactsExplorer's own translator (seed 001's translate extension), shipped inside
// ContactsExplorer.app/Extensions/. It serves both of the seed's forms: the exported distributed
// actor (`accept(connection:)`, `exportedObject`) and the session messages.
import AppexExtension
import AppexWidgetKit
import ContactsTranslation
import Distributed

@main
struct Translate: AppExtension {
    // Seed 001's binding, with literal strings: `appex bundle --sources` (and the appex-bundle
    // plugin) read it from this file. TranslatePoint names the same point for code.
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.myapp.MyApp", name: "Translate")
    }

    // Its scene (the point presents user interface): the note, a language, the translation.
    // Its other messages are served as before, on the same connection.
    var configuration: AppExtensionSceneConfiguration {
        AppExtensionSceneConfiguration(
            PrimitiveAppExtensionScene(id: TranslationScene.identifier) { parameters in
                TranslationScene(note: parameters["note"] ?? "")
            },
            configuration: ConnectionHandler(onConnection: { connection in
                connection.exportedObject = FrenchTranslator(actorSystem: connection.actorSystem)
                connection.answerRequests(with: TranslationHandler())
                connection.resume()
                return true
            })
        )
    }

    init() {}
}

/// The connection form: the object the host reaches as `$NoteTranslator`.
distributed actor FrenchTranslator: NoteTranslator {
    typealias ActorSystem = IPCActorSystem

    distributed func translate(_ text: String) -> Translation {
        Translation(text: Phrasebook.french.translate(text), language: "fr", translator: "Translate")
    }
}

/// The session form: one message, one answer.
struct TranslationHandler: PeerHandler {
    func handleIncomingRequest(_ message: TranslationRequest) -> Translation {
        Translation(text: Phrasebook.french.translate(message.text), language: "fr", translator: "Translate")
    }
}

/// The scene: the note, the language to translate it into, and the translation.
struct TranslationScene: View {
    static let identifier = "translate"
    var note: String
    @State private var language = "fr"

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text("Translate").font(.caption).foregroundStyle(.secondary)
            Text(note).font(.headline)
            Picker("Language", selection: $language) {
                Text("Français").tag("fr")
                Text("English (as written)").tag("en")
            }
            Text(language == "fr" ? Phrasebook.french.translate(note) : note).font(.title3)
            Text("by ContactsExplorer's translator").foregroundStyle(.tertiary)
        }
    }
}

extension Phrasebook {
    static let french = Phrasebook(
        language: "fr",
        sentences: [
            "met at the conference.": "Rencontré à la conférence.",
            "prefers email.": "Préfère le courriel.",
            "call on fridays.": "Appeler le vendredi.",
        ],
        words: [
            "met": "rencontré", "at": "à", "the": "la", "conference": "conférence", "prefers": "préfère",
            "email": "courriel", "call": "appeler", "on": "le", "fridays": "vendredi", "and": "et",
            "hello": "bonjour", "thanks": "merci", "friend": "ami", "lunch": "déjeuner", "meeting": "réunion",
        ]
    )
}
