import AppexCore
import AppexTestTiers
import Foundation
import Testing

/// Real, public Apple Info.plist and entitlements files (see Fixtures/RealWorld/SOURCES.md).
@Suite(.timed) struct RealWorldFixtureTests {
    static let folder = fixturesFolder + "/RealWorld"

    struct InfoCase: Sendable, CustomTestStringConvertible {
        var file: String
        var point: String
        var unexpanded: Set<String>
        var testDescription: String { file }
    }

    static let infoCases: [InfoCase] = [
        InfoCase(
            file: "KhaosT__FSKitSample__FSKitExpExtension__Info.plist",
            point: "com.apple.fskit.fsmodule",
            unexpanded: []
        ),
        InfoCase(
            file: "Ranchero-Software__NetNewsWire__Mac__SafariExtension__Info.plist",
            point: "com.apple.Safari.extension",
            unexpanded: [
                "CURRENT_PROJECT_VERSION", "DEVELOPMENT_LANGUAGE", "EXECUTABLE_NAME", "MACOSX_DEPLOYMENT_TARGET",
                "MARKETING_VERSION", "PRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_MODULE_NAME", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file: "Ranchero-Software__NetNewsWire__Mac__ShareExtension__Info.plist",
            point: "com.apple.share-services",
            unexpanded: [
                "AppIdentifierPrefix", "CURRENT_PROJECT_VERSION", "DEVELOPMENT_LANGUAGE", "EXECUTABLE_NAME",
                "MACOSX_DEPLOYMENT_TARGET", "MARKETING_VERSION", "ORGANIZATION_IDENTIFIER", "PRODUCT_BUNDLE_IDENTIFIER",
                "PRODUCT_BUNDLE_PACKAGE_TYPE", "PRODUCT_MODULE_NAME", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file: "Ranchero-Software__NetNewsWire__Widget__Info.plist",
            point: "com.apple.widgetkit-extension",
            unexpanded: [
                "AppIdentifierPrefix", "DEVELOPER_ENTITLEMENTS", "DEVELOPMENT_LANGUAGE", "EXECUTABLE_NAME",
                "ORGANIZATION_IDENTIFIER", "PRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_BUNDLE_PACKAGE_TYPE", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file: "Ranchero-Software__NetNewsWire__iOS__IntentsExtension__Info.plist",
            point: "com.apple.intents-service",
            unexpanded: [
                "APP_GROUP_ID", "AppIdentifierPrefix", "CURRENT_PROJECT_VERSION", "DEVELOPMENT_LANGUAGE",
                "EXECUTABLE_NAME", "MARKETING_VERSION", "ORGANIZATION_IDENTIFIER", "PRODUCT_BUNDLE_IDENTIFIER",
                "PRODUCT_BUNDLE_PACKAGE_TYPE", "PRODUCT_MODULE_NAME", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file: "bitwarden__clients__apps__browser__src__safari__safari__Info.plist",
            point: "com.apple.Safari.web-extension",
            unexpanded: [
                "DEVELOPMENT_LANGUAGE", "EXECUTABLE_NAME", "MACOSX_DEPLOYMENT_TARGET", "PRODUCT_BUNDLE_IDENTIFIER",
                "PRODUCT_BUNDLE_PACKAGE_TYPE", "PRODUCT_MODULE_NAME", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file: "cryptomator__ios__FileProviderExtension__Info.plist",
            point: "com.apple.fileprovider-nonui",
            unexpanded: [
                "CURRENT_PROJECT_VERSION", "DEVELOPMENT_LANGUAGE", "EXECUTABLE_NAME", "MARKETING_VERSION",
                "PRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_BUNDLE_PACKAGE_TYPE", "PRODUCT_MODULE_NAME", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file:
                "forcedotcom__SalesforceMobileSDK-iOS__native__SampleApps__MobileSyncExplorer__RecentContactsTodayExtension__Info.plist",
            point: "com.apple.widget-extension",
            unexpanded: ["CURRENT_PROJECT_VERSION", "EXECUTABLE_NAME", "PRODUCT_BUNDLE_IDENTIFIER", "PRODUCT_NAME"]
        ),
        InfoCase(
            file: "wikimedia__wikipedia-ios__NotificationServiceExtension__Info.plist",
            point: "com.apple.usernotifications.service",
            unexpanded: [
                "CURRENT_PROJECT_VERSION", "DEVELOPMENT_LANGUAGE", "EXECUTABLE_NAME", "PRODUCT_BUNDLE_IDENTIFIER",
                "PRODUCT_BUNDLE_PACKAGE_TYPE", "PRODUCT_MODULE_NAME", "PRODUCT_NAME",
            ]
        ),
        InfoCase(
            file: "yorjandis__ProyectoNeville_IOS__BackgroundDownloadExtension__Info.plist",
            point: "com.apple.background-asset-downloader-extension",
            unexpanded: ["PRODUCT_MODULE_NAME"]
        ),
    ]

    @Test("every real-world fixture file is covered by a case here")
    func everyFixtureIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0 != "SOURCES.md" }
        let covered = Set(Self.infoCases.map(\.file) + Self.entitlementCases.map(\.file))
        #expect(Set(files) == covered)
    }

    @Test(
        "a real Info.plist reports its extension point and every unexpanded build setting by name",
        arguments: infoCases
    )
    func readsInfoPlist(_ testCase: InfoCase) throws {
        let path = Self.folder + "/" + testCase.file
        for format in PropertyListFormat.allCases {
            let bytes = try bytes(of: path, as: format)
            let info = BundleInfo(data: bytes, file: path, role: .appExtension)
            #expect(info.extensionPointIdentifier == testCase.point, "\(format)")
            #expect(!info.problems.contains { $0.kind == .malformedPropertyList }, "\(format)")
            let named = Set(
                info.problems.filter { $0.kind == .unexpandedBuildSetting }.map {
                    String($0.message.split(separator: " ")[3])
                }
            )
            #expect(named == testCase.unexpanded, "\(format)")
            for problem in info.problems where problem.kind == .unexpandedBuildSetting {
                #expect(problem.file == path)
                #expect(problem.key != nil)
                #expect(problem.message.hasSuffix(" in \(problem.key!)"))
            }
        }
    }

    @Test("unexpanded PRODUCT_BUNDLE_IDENTIFIER reads as Xcode users expect")
    func unexpandedBundleIdentifierMessage() throws {
        let path = Self.folder + "/wikimedia__wikipedia-ios__NotificationServiceExtension__Info.plist"
        let info = BundleInfo(data: try bytes(of: path, as: .xml), file: path, role: .appExtension)
        #expect(
            info.problems.contains {
                $0.description == "\(path): unexpanded build setting PRODUCT_BUNDLE_IDENTIFIER in CFBundleIdentifier"
            }
        )
    }

    @Test("an ExtensionKit Info.plist without CFBundle keys names each missing key")
    func fskitMissingKeys() throws {
        let path = Self.folder + "/KhaosT__FSKitSample__FSKitExpExtension__Info.plist"
        let info = BundleInfo(data: try bytes(of: path, as: .xml), file: path, role: .appExtension)
        let missing = Set(info.problems.filter { $0.kind == .missingKey }.compactMap(\.key))
        #expect(missing == ["CFBundleIdentifier", "CFBundleExecutable", "CFBundleVersion"])
    }

    struct EntitlementCase: Sendable, CustomTestStringConvertible {
        var file: String
        var groups: [String]
        var keychainGroups: [String]
        var unexpanded: Set<String>
        var testDescription: String { file }
    }

    static let entitlementCases: [EntitlementCase] = [
        EntitlementCase(
            file: "home-assistant__iOS__Configuration__Entitlements__App-ios.entitlements",
            groups: ["group.$(APP_BUNDLE_ID)"],
            keychainGroups: ["$(AppIdentifierPrefix)$(APP_BUNDLE_ID)"],
            unexpanded: ["APP_BUNDLE_ID", "AppIdentifierPrefix"]
        ),
        EntitlementCase(
            file: "home-assistant__iOS__Configuration__Entitlements__Extension-ios.entitlements",
            groups: ["group.$(APP_BUNDLE_ID)"],
            keychainGroups: ["$(AppIdentifierPrefix)$(APP_BUNDLE_ID)"],
            unexpanded: ["APP_BUNDLE_ID", "AppIdentifierPrefix"]
        ),
        EntitlementCase(
            file: "cryptomator__ios__Cryptomator__Cryptomator.entitlements",
            groups: ["group.com.setolabs.Cryptomator"],
            keychainGroups: ["$(AppIdentifierPrefix)com.setolabs.Cryptomator"],
            unexpanded: ["AppIdentifierPrefix"]
        ),
        EntitlementCase(
            file: "cryptomator__ios__FileProviderExtension__FileProviderExtension.entitlements",
            groups: ["group.com.setolabs.Cryptomator"],
            keychainGroups: ["$(AppIdentifierPrefix)com.setolabs.Cryptomator"],
            unexpanded: ["AppIdentifierPrefix"]
        ),
        EntitlementCase(
            file: "wikimedia__wikipedia-ios__Wikipedia__Wikipedia.entitlements",
            groups: [
                "group.org.wikimedia.wikipedia", "group.org.wikimedia.wikipedia.alpha",
                "group.org.wikimedia.wikipedia.beta",
            ],
            keychainGroups: [],
            unexpanded: []
        ),
        EntitlementCase(
            file: "wikimedia__wikipedia-ios__NotificationServiceExtension__NotificationServiceExtension.entitlements",
            groups: [
                "group.org.wikimedia.wikipedia", "group.org.wikimedia.wikipedia.alpha",
                "group.org.wikimedia.wikipedia.beta",
            ],
            keychainGroups: [],
            unexpanded: []
        ),
    ]

    @Test(
        "a real entitlements file yields its app groups, keychain groups and unexpanded settings",
        arguments: entitlementCases
    )
    func readsEntitlements(_ testCase: EntitlementCase) throws {
        let path = Self.folder + "/" + testCase.file
        for format in PropertyListFormat.allCases {
            let entitlements = Entitlements(data: try bytes(of: path, as: format), file: path)
            #expect(entitlements.applicationGroups == testCase.groups)
            #expect(entitlements.keychainAccessGroups == testCase.keychainGroups)
            let named = Set(
                entitlements.problems.filter { $0.kind == .unexpandedBuildSetting }.map {
                    String($0.message.split(separator: " ")[3])
                }
            )
            #expect(named == testCase.unexpanded)
            #expect(entitlements.problems.allSatisfy { $0.kind == .unexpandedBuildSetting })
        }
    }

    /// The file's bytes, converted to binary form when asked (the fixtures are XML).
    private func bytes(of path: String, as format: PropertyListFormat) throws -> [UInt8] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard format == .binary else { return Array(data) }
        let object = try PropertyListSerialization.propertyList(from: data, format: nil)
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist00".utf8)))
        return Array(binary)
    }
}
