import AppexExtension
import AppexWidgetKit

@main
struct Translator: AppExtension {
    @AppExtensionPoint.Bind
    var boundAppExtensionPoint: AppExtensionPoint {
        AppExtensionPoint.Identifier("com.example.notes", name: "Translate")
    }

    var configuration: AppExtensionSceneConfiguration {
        AppExtensionSceneConfiguration(PrimitiveAppExtensionScene(id: "translate") { TranslateView() })
    }
}

struct TranslateView: View {
    @State private var language = "French"
    @State private var note = "Good morning"

    var body: some View {
        VStack(alignment: .leading) {
            TextField("Note", text: $note)
            Picker("Language", selection: $language) {
                ForEach(["French", "German"], id: \.self) { Text($0).tag($0) }
            }
            Text(language == "French" ? "Bonjour" : "Guten Morgen").font(.title2)
        }
    }
}