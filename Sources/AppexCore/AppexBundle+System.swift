import Foundation

extension AppexBundle {
    /// A host that exists only in code, such as the system's widget host: it has an identifier
    /// and declares points, but no files, no seal and no team. Nothing on disk can change it.
    ///
    /// - Parameters:
    ///   - identifier: the host's bundle identifier (`com.apple` for Apple's system points).
    ///   - points: the points it declares.
    ///   - path: where its state lives; listed as the host's path in messages.
    package static func systemHost(
        identifier: String,
        points: [ExtensionPointDeclaration],
        path: String
    ) -> AppexBundle {
        let dictionary: [String: PropertyListValue] = [BundleInfo.Key.bundleIdentifier: .string(identifier)]
        let bytes = (try? PropertyListFormat.binary.encode(dictionary)).map { Array($0) } ?? []
        return AppexBundle(
            path: path,
            kind: .hostApp,
            info: BundleInfo(data: bytes, file: path + "/" + File.info, role: .hostApp),
            entitlements: .none,
            team: nil,
            extensionPoints: points,
            problems: [],
            fileCount: 0,
            observation: BundleObservation(entries: []),
            directories: []
        )
    }
}
