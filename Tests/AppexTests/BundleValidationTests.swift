import AppexCore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

@Suite(.timed) struct BundleValidationTests {
    let directory: TemporaryDirectory
    let team = SigningKey.generate()

    init() throws { directory = try TemporaryDirectory() }

    @Test("XML and binary Info.plists read the same", arguments: PropertyListFormat.allCases)
    func readsBothFormats(_ format: PropertyListFormat) throws {
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "Translate",
            bundleIdentifier: "com.example.translate",
            extensionPoint: "com.example.hostapp.HostAppFeature",
            format: format,
            info: [BundleInfo.Key.displayName: .string("Translator"), "CFBundleShortVersionString": .string("2.1")],
            signedBy: team
        )
        let header = try Data(contentsOf: URL(fileURLWithPath: path + "/Info.plist")).prefix(8)
        #expect((header == Data("bplist00".utf8)) == (format == .binary))
        let bundle = AppexBundle.load(at: path)
        #expect(bundle.problems == [])
        #expect(bundle.kind == .appExtension)
        #expect(bundle.bundleIdentifier == "com.example.translate")
        #expect(bundle.info.executableName == "Extension")
        #expect(bundle.info.localizedName == "Translator")
        #expect(bundle.info.version == "1")
        #expect(bundle.info.shortVersion == "2.1")
        #expect(bundle.info.extensionPointIdentifier == "com.example.hostapp.HostAppFeature")
        #expect(bundle.team == team.teamIdentifier)
    }

    @Test("the legacy NSExtension key names the extension point too")
    func legacyExtensionPoint() throws {
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "Legacy",
            bundleIdentifier: "com.example.legacy",
            extensionPoint: "unused",
            info: ["NSExtension": .dictionary(["NSExtensionPointIdentifier": .string("com.example.hostapp.Old")])],
            removing: ["EXAppExtensionAttributes"],
            signedBy: team
        )
        let bundle = AppexBundle.load(at: path)
        #expect(bundle.info.extensionPointIdentifier == "com.example.hostapp.Old")
        #expect(bundle.problems == [])
    }

    @Test("every problem is reported at once, each naming its file and key")
    func reportsEveryProblem() throws {
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "Broken",
            bundleIdentifier: "unused",
            extensionPoint: "unused",
            info: [
                "CFBundleIdentifier": .string("$(PRODUCT_BUNDLE_IDENTIFIER)"),
                "CFBundleName": .integer(7),
                "CFBundleExecutable": .string("Missing"),
                "EXAppExtensionAttributes": .string("not a dictionary"),
            ],
            removing: ["CFBundleVersion"]
        )
        try FileManager.default.removeItem(atPath: path + "/Missing")
        let info = path + "/Info.plist"
        let bundle = AppexBundle.load(at: path)
        let descriptions = Set(bundle.problems.map(\.description))
        #expect(
            descriptions.contains("\(info): unexpanded build setting PRODUCT_BUNDLE_IDENTIFIER in CFBundleIdentifier")
        )
        #expect(descriptions.contains("\(info): CFBundleName must be a string, found integer"))
        #expect(descriptions.contains("\(info): missing key CFBundleVersion"))
        #expect(descriptions.contains("\(info): EXAppExtensionAttributes must be a dictionary, found string"))
        #expect(
            bundle.problems.contains {
                $0.kind == .missingExecutable && $0.file == path + "/Missing" && $0.key == "CFBundleExecutable"
            }
        )
        #expect(bundle.problems.contains { $0.kind == .unsigned && $0.file == path + "/_CodeSignature/CodeResources" })
        #expect(bundle.problems.count == 6)
    }

    @Test("an extension without any extension point key says which key is missing")
    func missingExtensionPoint() throws {
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "NoPoint",
            bundleIdentifier: "com.example.nopoint",
            extensionPoint: "x",
            removing: ["EXAppExtensionAttributes"],
            signedBy: team
        )
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.count == 1)
        #expect(problems.first?.kind == .missingKey)
        #expect(problems.first?.key == "EXAppExtensionAttributes.EXExtensionPointIdentifier")
    }

    @Test("an executable without the x bit is reported")
    func executableNotExecutable() throws {
        let path = try FixtureBundles.makeExtension(
            in: directory.path,
            name: "NoX",
            bundleIdentifier: "com.example.nox",
            extensionPoint: "a.b"
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + "/Extension")
        try AppexBundle.sign(at: path, with: team)
        let problems = AppexBundle.load(at: path).problems
        #expect(problems.map(\.kind) == [.notExecutable])
        #expect(problems.first?.file == path + "/Extension")
    }

    @Test("a host's extension point declarations are read, and a foreign identifier is refused")
    func hostDeclarations() throws {
        let host = try FixtureBundles.makeHostApp(
            at: directory.appending("Host.app"),
            bundleIdentifier: "com.example.hostapp",
            extensionPoints: ["HostAppFeature", "Other"],
            format: .binary,
            signedBy: team
        )
        var bundle = AppexBundle.load(at: host)
        #expect(bundle.problems == [])
        #expect(
            bundle.extensionPoints.map(\.identifier.description).sorted() == [
                "com.example.hostapp.HostAppFeature", "com.example.hostapp.Other",
            ]
        )
        #expect(bundle.extensionPoints.allSatisfy { !$0.requiresEnhancedSecurity && !$0.presentsUserInterface })

        let foreign = ExtensionPointDeclaration(
            identifier: ExtensionPointIdentifier(host: "com.other.app", name: "Feature"),
            requiresEnhancedSecurity: true
        )
        let file = host + "/ExtensionPoints/Feature.appextensionpoint"
        try FixtureBundles.write(PropertyListFormat.xml.encode(foreign.propertyList), to: file)
        try AppexBundle.sign(at: host, with: team)
        bundle = AppexBundle.load(at: host)
        #expect(bundle.problems.count == 1)
        #expect(bundle.problems.first?.file == file)
        #expect(bundle.problems.first?.message.contains("does not belong to host com.example.hostapp") == true)
    }

    @Test("an extension bound to a point its host does not declare has a binding problem")
    func undeclaredPoint() throws {
        let host = AppexBundle.load(
            at: try FixtureBundles.makeHostApp(
                at: directory.appending("Host.app"),
                bundleIdentifier: "com.example.hostapp",
                extensionPoints: ["A"],
                signedBy: team
            )
        )
        let ext = AppexBundle.load(
            at: try FixtureBundles.makeExtension(
                in: directory.path,
                name: "E",
                bundleIdentifier: "com.example.e",
                extensionPoint: "com.example.hostapp.B",
                signedBy: team
            )
        )
        let problems = ext.bindingProblems(against: host)
        #expect(problems.map(\.kind) == [.undeclaredExtensionPoint])
        #expect(
            problems.first?.message
                == "extension point com.example.hostapp.B is not declared by host com.example.hostapp (it declares: com.example.hostapp.A)"
        )
    }

    @Test("extension point identifiers split at the last dot and round-trip")
    func pointIdentifiers() throws {
        let id = try #require(ExtensionPointIdentifier("com.example.hostapp.HostAppFeature"))
        #expect(id.hostBundleIdentifier == "com.example.hostapp")
        #expect(id.name == "HostAppFeature")
        #expect(id.description == "com.example.hostapp.HostAppFeature")
        #expect(ExtensionPointIdentifier("nodot") == nil)
        #expect(ExtensionPointIdentifier(".x") == nil)
        #expect(ExtensionPointIdentifier("x.") == nil)
    }
}
