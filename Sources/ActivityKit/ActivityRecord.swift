internal import AppexSystem
package import AppexVocabulary
package import Foundation

/// A Live Activity as its file under `$APPEX_HOME/Widgets/Activities` holds it: written whole
/// (renamed into place) by the app at each request, update and end; read by the widget host,
/// which draws it with the widget extension's `ActivityConfiguration` for its attributes type.
///
/// The file is JSON, so any tool can start one:
/// `{"id":"…","type":"AdventureAttributes","attributes":"{…}","state":"{…}","activityState":"active",…}`
/// (`attributes` and `state` are the JSON of the app's `Codable` values, as text).
package struct ActivityRecord: Codable, Sendable, Hashable {
    /// The activity's identifier (a UUID), also its file's name.
    package var id: String
    /// The `.app` bundle that started it, when it runs inside one: only that app's widget
    /// extensions draw it.
    package var app: String?
    /// The attributes type's name, as `ActivityConfiguration(for:)` names it.
    package var type: String
    /// The attributes' JSON.
    package var attributes: String
    /// The content state's JSON.
    package var state: String
    /// Seconds since 1970 after which the content is stale.
    package var staleDate: Double?
    package var relevanceScore: Double
    /// `active` or `ended` (``ActivityState``).
    package var activityState: ActivityState
    /// Seconds since 1970 after which an ended activity is no longer shown.
    package var dismissAt: Double?
    /// Seconds since 1970 of the last write; with `revision`, what a drawing is of.
    package var updatedAt: Double
    /// 1 at the request, one more at each update and at the end.
    package var revision: Int

    /// The folder under `home`.
    package static func folder(home: String) -> String { StateRoot.widgetActivities(home: home) }

    /// The `$APPEX_HOME` of this process.
    static var home: String {
        let variables = ProcessInfo.processInfo.environment
        return StateRoot.home(variables: variables, userHome: variables["HOME"] ?? "/")
    }

    /// Writes the record in `home`'s folder, replacing the one before it whole.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `fileSystem`, naming the file.
    package func write(home: String) throws(AppexError) {
        let folder = Self.folder(home: home)
        let path = folder + "/" + id + ".activity"
        do {
            let bytes = [UInt8](try JSONEncoder().encode(self))
            try Syscalls.makeDirectories(folder, mode: 0o700)
            try Syscalls.writeFileAtomically(path, bytes: bytes, mode: 0o600)
        } catch {
            throw AppexError(
                .fileSystem,
                "cannot write the Live Activity \(path)",
                context: AppexError.Context(path: path),
                underlyingError: error
            )
        }
    }

    /// Every readable record in `home`'s folder; a file that is not one is skipped.
    package static func all(home: String) -> [ActivityRecord] {
        let folder = folder(home: home)
        guard let names = try? Syscalls.directoryEntries(folder) else { return [] }
        return names.sorted().filter { $0.hasSuffix(".activity") }.compactMap { name in
            guard let bytes = try? Syscalls.readFile(folder + "/" + name, limit: 1 << 20) else { return nil }
            guard let record = try? JSONDecoder().decode(ActivityRecord.self, from: Data(bytes)) else { return nil }
            return name == record.id + ".activity" ? record : nil
        }
    }

    /// Removes its file from `home`'s folder (it is no longer shown).
    package func remove(home: String) {
        try? Syscalls.removeFile(Self.folder(home: home) + "/" + id + ".activity")
    }

    /// Ended, and past its dismissal date at `now`.
    package func isDismissed(at now: Date) -> Bool {
        activityState != .active && activityState != .stale
            && (dismissAt ?? 0) <= now.timeIntervalSince1970
    }

    /// The next moment after `now` it changes by itself: its stale date, or its dismissal.
    package func nextChange(after now: Date) -> Date? {
        [staleDate, activityState == .ended ? dismissAt : nil].compactMap { $0 }
            .map(Date.init(timeIntervalSince1970:)).filter { $0 > now }.min()
    }

    /// Past its stale date at `now`.
    package func isStale(at now: Date) -> Bool {
        staleDate.map { $0 <= now.timeIntervalSince1970 } ?? false
    }
}
