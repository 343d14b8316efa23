package import AppexCore
import Foundation

/// The warnings about `bundle`'s app groups and keychain access groups against the host app
/// whose `Extensions/` folder it sits in (none for a host app, or an extension outside one):
/// ``AppexBundle/sharedEntitlementWarnings(against:)``.
package func sharingWarnings(of bundle: AppexBundle) -> [BundleProblem] {
    guard bundle.kind == .appExtension else { return [] }
    let parent = URL(fileURLWithPath: bundle.path).deletingLastPathComponent()
    guard parent.lastPathComponent == AppexBundle.File.extensions else { return [] }
    let host = AppexBundle.load(at: parent.deletingLastPathComponent().path, as: .hostApp)
    guard host.bundleIdentifier != nil else { return [] }
    return bundle.sharedEntitlementWarnings(against: host)
}

/// Prints ``sharingWarnings(of:)`` on standard error, `appex: warning: ` and the warning, one a
/// line: the bundle was made or signed; what it does not share with its host is said.
package func warnAboutSharing(of bundle: AppexBundle) {
    for warning in sharingWarnings(of: bundle) {
        FileHandle.standardError.write(Data("appex: warning: \(warning)\n".utf8))
    }
}
