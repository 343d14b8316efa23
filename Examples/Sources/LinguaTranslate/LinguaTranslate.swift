// A translator from another team (Lingua Labs, signed with their own key), installed on
// APPEX_EXTENSIONS_PATH (seed 004): ContactsExplorer does not offer it until its owner runs
// `ContactsExplorer extensions enable com.lingualabs.translate`. It is written as seed 001
// writes the session form.
import AppexExtension
import AppexWidgetKit
import ContactsTranslation

@main
struct LinguaTranslate: AppExtension {
    // Seed 001's binding, with literal strings: `appex bundle --sources` (and the appex-bundle
    // plugin) read it from this file. TranslatePoint names the same point for code.
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.myapp.MyApp", name: "Translate")
    }

    // Its scene (the point presents user interface), beside the session form.
    var configuration: AppExtensionSceneConfiguration {
        AppExtensionSceneConfiguration(
            PrimitiveAppExtensionScene(id: "translate") { parameters in
                LinguaScene(note: parameters["note"] ?? "")
            },
            configuration: ConnectionHandler(onSessionRequest: { request in
                request.accept { session in
                    GermanHandler()
                }
            })
        )
    }

    init() {}
}

/// Lingua Labs' scene: the note, German or Spanish, the translation.
struct LinguaScene: View {
    var note: String
    @State private var language = "de"

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text("Lingua Labs").font(.caption).foregroundStyle(.secondary)
            Text(note).font(.headline)
            Picker("Language", selection: $language) {
                Text("Deutsch").tag("de")
                Text("English (as written)").tag("en")
            }
            Text(language == "de" ? GermanHandler().german.translate(note) : note).font(.title3)
        }
    }
}

struct GermanHandler: PeerHandler {
    func handleIncomingRequest(_ message: TranslationRequest) -> Translation {
        Translation(text: german.translate(message.text), language: "de", translator: "Lingua")
    }

    let german = Phrasebook(
        language: "de",
        sentences: [
            "met at the conference.": "Auf der Konferenz kennengelernt.",
            "prefers email.": "Bevorzugt E-Mail.",
            "call on fridays.": "Freitags anrufen.",
        ],
        words: [
            "met": "getroffen", "at": "auf", "the": "der", "conference": "Konferenz", "prefers": "bevorzugt",
            "email": "E-Mail", "call": "anrufen", "on": "am", "fridays": "Freitag", "and": "und",
            "hello": "hallo", "thanks": "danke", "friend": "Freund", "lunch": "Mittagessen",
        ]
    )
}
