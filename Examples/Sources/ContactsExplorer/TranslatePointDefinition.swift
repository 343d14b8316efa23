import AppexHost

extension AppExtensionPoint {
    /// The point translators bind to, defined in code (ExtensionFoundation's `@Definition`):
    /// `appex bundle --sources` and the `appex-bundle` plugin write
    /// `ContactsExplorer.app/ExtensionPoints/Translate.appextensionpoint` from it.
    /// `ContactsTranslation.TranslatePoint` names the same point for the extensions' code.
    @Definition
    static var translate: AppExtensionPoint {
        Name("Translate")
        UserInterface(true)  // each translator also presents a scene: the note, a language, the translation
        Scope(restriction: .none)  // Lingua Labs' translator comes from elsewhere (seed 004)
    }
}
