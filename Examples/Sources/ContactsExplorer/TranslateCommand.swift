import AppexHost
import ArgumentParser
import ContactsKit
import ContactsTranslation
import Foundation

/// Translates a contact's note with every translator the owner enabled (seed 001's extension,
/// and other developers' once approved, seed 004).
struct TranslateNote: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "translate",
        abstract: "Translate a contact's note with each enabled translator.",
        discussion: """
            By default each translator is asked in the session form (makeSession, send); with \
            --connection through its exported distributed actor (makeConnection, remoteObject).
            """
    )
    @Argument(help: "The contact's id.") var id: String
    @Option(name: .customLong("with"), help: ArgumentHelp("Only this translator.", valueName: "BUNDLE_ID"))
    var translator: String?
    @Flag(help: "Call the translator's exported distributed actor (NoteTranslator) instead of sending a message.")
    var connection = false

    func run() async throws {
        try await reporting {
            let app = try App.launched()
            let contact = try app.store().contact(id: id)
            guard !contact.note.isEmpty else {
                print("\(TerminalText.safe(contact.name)) has no note")
                return
            }
            let translations = try await app.translate(contact.note, with: translator, connection: connection)
            print("note: \(TerminalText.safe(contact.note))")
            for translation in translations {
                print(
                    "\(TerminalText.safe(translation.translator)) (\(translation.language)): \(TerminalText.safe(translation.text))"
                )
            }
        }
    }
}

extension App {
    /// The app's translate point.
    var translatePoint: AppExtensionPoint {
        AppExtensionPoint(host: TranslatePoint.host, name: TranslatePoint.name)
    }

    /// `text` translated by each enabled translator (or only `bundleIdentifier`), each in its own
    /// process, in the session form or, with `connection`, through its exported actor.
    func translate(_ text: String, with bundleIdentifier: String?, connection: Bool) async throws -> [Translation] {
        // The translators of the point as discovery sees them now (`run` follows them with a
        // monitor; one translation needs only this moment's).
        let found = try ExtensionDiscovery(hostBundleAt: bundlePath, environment: environment).snapshot().extensions
            .filter { $0.extensionPoint == translatePoint.identifier.description }
        var translators = found.filter { $0.state == .enabled }.compactMap(\.identity)
        if let bundleIdentifier {
            translators = translators.filter { $0.bundleIdentifier == bundleIdentifier }
            guard !translators.isEmpty else {
                let state = found.first { $0.bundleIdentifier == bundleIdentifier }?.state
                throw ContactsError(
                    .notFound,
                    state.map {
                        "the translator \(bundleIdentifier) is \($0.rawValue): `ContactsExplorer extensions enable \(bundleIdentifier)`"
                    } ?? "no translator \(bundleIdentifier) is installed"
                )
            }
        }
        guard !translators.isEmpty else {
            throw ContactsError(.notFound, "no translator is enabled (`ContactsExplorer extensions list`)")
        }
        var translations: [Translation] = []
        for identity in translators {
            let process = try await AppExtensionProcess(
                configuration: AppExtensionProcess.Configuration(
                    identity: identity,
                    hostBundlePath: bundlePath,
                    environment: environment
                )
            )
            defer { process.invalidate() }
            if connection {
                let translator = try await process.makeConnection().remoteObject(as: $NoteTranslator.self)
                translations.append(try await translator.translate(text))
            } else {
                let session = try await process.makeSession()
                translations.append(try await session.send(TranslationRequest(text: text), expecting: Translation.self))
            }
        }
        return translations
    }
}
