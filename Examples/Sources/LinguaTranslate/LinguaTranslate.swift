// A translator from another team (Lingua Labs, signed with their own key), installed on
// APPEX_EXTENSIONS_PATH (seed 004): ContactsExplorer does not offer it until its owner runs
// `ContactsExplorer extensions enable com.lingualabs.translate`. It is written as seed 001
// writes the session form.
import AppexExtension
import ContactsTranslation

@main
struct LinguaTranslate: AppExtension {
    // Seed 001's binding, with literal strings: `appex bundle --sources` (and the appex-bundle
    // plugin) read it from this file. TranslatePoint names the same point for code.
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.myapp.MyApp", name: "Translate")
    }

    var configuration: ConnectionHandler {
        ConnectionHandler(onSessionRequest: { request in
            request.accept { session in
                GermanHandler()
            }
        })
    }

    init() {}
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
