/// A SiriKit intent, as `Intents`' `INIntent`: the base of the classes Xcode generates from an
/// `.intentdefinition` file, which a port writes by hand (`class MyIntent: INIntent { var hero: Hero? }`).
///
/// An ``IntentConfiguration`` widget is configured by picking one of its provider's
/// `recommendations()` (as watchOS offers intent widgets): Swift cannot set a class's properties
/// by name, so the presets are the settings.
open class INIntent {
    /// An intent with its parameters unset.
    public required init() {}
}

/// A value a SiriKit intent's parameter holds, as `Intents`' `INObject`: an identifier and the
/// text shown for it. Generated classes subclass it (`class Hero: INObject {}`).
open class INObject {
    /// The identifier; `nil` for a value that has none.
    public let identifier: String?
    /// The text shown.
    public let displayString: String
    /// A line under it; `nil` for none.
    public let subtitleString: String?

    /// A value identified as `identifier`, shown as `displayString`.
    public init(identifier: String?, display displayString: String, subtitle subtitleString: String? = nil) {
        self.identifier = identifier
        self.displayString = displayString
        self.subtitleString = subtitleString
    }
}
