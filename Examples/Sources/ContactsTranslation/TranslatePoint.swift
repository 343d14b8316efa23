/// ContactsExplorer's translate extension point, as its app declares it
/// (`ContactsExplorer.app/ExtensionPoints/Translate.appextensionpoint`).
public enum TranslatePoint {
    /// The app's bundle identifier, which the point's identifier starts with.
    public static let host = "com.myapp.MyApp"
    /// The point's name.
    public static let name = "Translate"
}
