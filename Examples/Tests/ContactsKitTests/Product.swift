import AppexCore
import AppexTesting
import AppexWidgetHost
import ContactsKit
import Foundation

/// The product installed as a user installs it (what `Scripts/demo.sh` does with `appex bundle`):
/// `ContactsExplorer.app` with its translate point, app group and keychain group (seed 000),
/// its RecentContacts widget and Translate extension inside, all signed by the app's team; and
/// Lingua Labs' translator and widget on `APPEX_EXTENSIONS_PATH`, signed by their own team.
enum Product {
    /// Where the test runner's sibling executables are.
    static let builtProducts = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().path

    /// The Examples package's Sources folder.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources").path

    /// The system's widget host on `environment`, as `appex widgets` makes it but with a minute's
    /// deadline for each launch, not 10 seconds: these tests prove what a widget shows, and the
    /// product tier runs beside builds (CI, issue 49), where a debug widget that opens its stores
    /// and asks the app took longer than 10 s and showed "No content yet".
    static func widgetHost(_ environment: AppexEnvironment) throws -> WidgetHost {
        var configuration = WidgetHost.Configuration(environment: environment)
        configuration.deadline = .seconds(60)
        return try WidgetHost(configuration: configuration)
    }

    /// The app group and keychain group the app and its extensions share (seed 000).
    static let shared = Entitlements(
        applicationGroups: [SharedConfiguration.appGroup],
        keychainAccessGroups: [SharedConfiguration.keychainGroup]
    )

    /// The widget's: the shared groups, and the network (its sandbox refuses connections
    /// without `com.apple.security.network.client`).
    static let widget = Entitlements(
        applicationGroups: [SharedConfiguration.appGroup],
        keychainAccessGroups: [SharedConfiguration.keychainGroup],
        values: ["com.apple.security.network.client": .boolean(true)]
    )

    /// The other developer's team.
    static let linguaLabs = SigningKey.generate()

    /// Installs the product under `world`: the app in `Applications/`, the third-party bundles in
    /// the world's search folder. Returns the app's path.
    static func install(in world: AppexTestEnvironment) throws -> String {
        var recipe = AppexBundle.AppRecipe(
            executable: builtProducts + "/ContactsExplorer",
            bundleIdentifier: "com.myapp.MyApp"
        )
        recipe.name = "ContactsExplorer"
        recipe.entitlements = shared
        // The app's points, from its @Definitions, as `appex bundle --sources` reads them (the
        // Translate point takes extensions from elsewhere: Lingua Labs', seed 004).
        recipe.extensionPoints = try SourceDeclarations(directory: sources + "/ContactsExplorer").definitions.map {
            ExtensionPointDeclaration($0, host: "com.myapp.MyApp")
        }
        recipe.signingKey = world.team
        let app = try AppexBundle.makeApp(at: world.root.appending("Applications/ContactsExplorer.app"), from: recipe)
            .path
        try FixtureBundles.bundle(
            executable: builtProducts + "/RecentContacts",
            in: app + "/Extensions",
            name: "RecentContacts",
            bundleIdentifier: "com.myapp.MyApp.RecentContacts",
            entitlements: widget,
            signedBy: world.team
        )
        try FixtureBundles.bundle(
            executable: builtProducts + "/Translate",
            in: app + "/Extensions",
            name: "Translate",
            bundleIdentifier: "com.myapp.MyApp.Translate",
            signedBy: world.team
        )
        try FixtureBundles.bundle(
            executable: builtProducts + "/LinguaTranslate",
            in: world.searchFolder,
            name: "Lingua",
            bundleIdentifier: "com.lingualabs.translate",
            signedBy: linguaLabs
        )
        try FixtureBundles.bundle(
            executable: builtProducts + "/LinguaWidgets",
            in: world.searchFolder,
            name: "LinguaWidgets",
            bundleIdentifier: "com.lingualabs.widgets",
            signedBy: linguaLabs
        )
        return app
    }
}
