import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// `AppexBundle.makeApp` and `makeExtension` (what `appex bundle` does): an app replaced keeps
/// the extensions inside it; a bundle is replaced only whole, so a failure leaves the old one.
@Suite(.timed) struct BundleMakingTests {
    @Test("an app made again with replacesExisting keeps its Extensions/; without it, it is refused and unchanged")
    func appKeepsItsExtensions() throws {
        let world = try AppexTestEnvironment(prefix: "appex-make")
        let path = world.root.appending("Maker.app")
        var recipe = AppexBundle.AppRecipe(executable: widgetAppExecutable, bundleIdentifier: "com.example.maker")
        recipe.signingKey = world.team
        let made = try AppexBundle.makeApp(at: path, from: recipe)
        #expect(made.isValid, "\(made.problems)")
        try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: path + "/Extensions",
            name: "Widgets",
            bundleIdentifier: "com.example.maker.widgets",
            signedBy: world.team
        )
        #expect(throws: AppexError.self) { try AppexBundle.makeApp(at: path, from: recipe) }
        #expect(FileManager.default.fileExists(atPath: path + "/Extensions/Widgets.appex/Info.plist"))

        recipe.replacesExisting = true
        recipe.version = "2"
        let remade = try AppexBundle.makeApp(at: path, from: recipe)
        #expect(remade.isValid, "\(remade.problems)")
        #expect(remade.info.version == "2")
        let widgets = AppexBundle.load(at: path + "/Extensions/Widgets.appex", as: .appExtension)
        #expect(widgets.isValid, "\(widgets.problems)")
    }

    @Test("an app made with extension points declares them inside its seal; a point of another host is refused")
    func appDeclaresItsPoints() throws {
        let world = try AppexTestEnvironment(prefix: "appex-make")
        let path = world.root.appending("Points.app")
        var recipe = AppexBundle.AppRecipe(executable: widgetAppExecutable, bundleIdentifier: "com.example.points")
        recipe.signingKey = world.team
        recipe.extensionPoints = [
            ExtensionPointDeclaration(
                identifier: ExtensionPointIdentifier(host: "com.example.points", name: "Translate")
            ),
            ExtensionPointDeclaration(
                identifier: ExtensionPointIdentifier(host: "com.example.points", name: "Secure"),
                requiresEnhancedSecurity: true
            ),
        ]
        let made = try AppexBundle.makeApp(at: path, from: recipe)
        #expect(made.isValid, "\(made.problems)")
        #expect(
            made.extensionPoints.map(\.identifier.description).sorted() == [
                "com.example.points.Secure", "com.example.points.Translate",
            ]
        )
        #expect(made.extensionPoints.first { $0.identifier.name == "Secure" }?.requiresEnhancedSecurity == true)

        let other = world.root.appending("Other.app")
        recipe.extensionPoints = [
            ExtensionPointDeclaration(identifier: ExtensionPointIdentifier(host: "com.example.else", name: "X"))
        ]
        #expect(throws: AppexError.self) { try AppexBundle.makeApp(at: other, from: recipe) }
        #expect(!FileManager.default.fileExists(atPath: other))
    }

    @Test("a bundle that cannot be made leaves the one it was to replace as it was")
    func failedReplacementChangesNothing() throws {
        let world = try AppexTestEnvironment(prefix: "appex-make")
        let folder = world.root.appending("Out")
        let path = try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: folder,
            name: "Widgets",
            bundleIdentifier: "com.example.maker.widgets",
            signedBy: world.team
        )
        var recipe = AppexBundle.ExtensionRecipe(executable: world.root.appending("no-such-executable"))
        recipe.extensionPoint = ExtensionPointIdentifier(host: "com.apple", name: "widgetkit-extension")
        recipe.bundleIdentifier = "com.example.maker.widgets"
        recipe.replacesExisting = true
        let error = #expect(throws: AppexError.self) { try AppexBundle.makeExtension(at: path, from: recipe) }
        #expect(error?.code == .fileSystem)
        #expect(error?.context.path == path)
        let kept = AppexBundle.load(at: path, as: .appExtension)
        #expect(kept.isValid, "\(kept.problems)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["Widgets.appex"])
    }
}
