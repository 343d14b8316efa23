// A UI extension: a translator scene, as ContactsExplorer's Translate point presents one. It
// binds to the test host's UI point (`SceneFeature`) and also answers session messages of its
// own (a plain echo), on the same connection as its scenes.
import AppexExtension
import AppexWidgetKit
import Foundation

@main
struct SceneExtension: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.example.hostapp", name: "SceneFeature")
    }

    var configuration: AppExtensionSceneConfiguration {
        AppExtensionSceneConfiguration(
            PrimitiveAppExtensionScene(id: "translate") { parameters in
                TranslateScene(note: parameters["note"] ?? "Good morning")
            },
            configuration: ConnectionHandler { (message: String) in "echo: " + message }
        )
    }
}

/// The languages the scene translates into.
enum Language: String, CaseIterable, Hashable {
    case english, french, german

    var name: String {
        switch self {
        case .english: "English"
        case .french: "Français"
        case .german: "Deutsch"
        }
    }

    func translate(_ text: String) -> String {
        switch self {
        case .english: text
        case .french: text == "Good morning" ? "Bonjour" : "[fr] " + text
        case .german: text == "Good morning" ? "Guten Morgen" : "[de] " + text
        }
    }
}

struct TranslateScene: View {
    var note: String
    @State private var language = Language.english
    @State private var formal = false
    @State private var signature = ""
    @State private var copies = 0

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text(note).font(.headline)
            Picker("Language", selection: $language) {
                ForEach(Language.allCases, id: \.self) { language in
                    Text(language.name).tag(language)
                }
            }
            Toggle("Formal", isOn: $formal)
            TextField("Signature", text: $signature, prompt: "Your name")
            Text(translation).font(.title2)
            Button("Copy") { copies += 1 }
            Text("Copied \(copies) times").foregroundStyle(.secondary)
        }
    }

    var translation: String {
        var text = language.translate(note)
        if formal { text += " (formal)" }
        if !signature.isEmpty { text += " — " + signature }
        return text
    }
}
