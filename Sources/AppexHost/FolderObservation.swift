import AppexSystem

/// What a snapshot saw of the folders it listed (search places, apps, their `Extensions/`):
/// each folder's `stat`, or its absence, taken just before the folder was listed.
///
/// A bundle added to, removed from or renamed within a folder changes that folder's
/// modification time, so while every folder still stats the same, the snapshot's list of
/// candidates is the same (the approach of ``/AppexCore/AppexBundle``'s own observation, and of
/// git's index). A launch checks this instead of listing every folder and re-stating every
/// bundle: what it launches stays one `stat` per folder plus its own bundle's files.
struct FolderObservation: Sendable {
    private var entries: [(path: String, status: FileStatus?)] = []
    /// When the observation began (wall clock, ns): every status was taken after it.
    private let takenAt = Syscalls.wallClockNanoseconds()
    /// Timestamps this close to the observation cannot vouch for the folder: an entry added
    /// within the same timestamp tick would leave its modification time unchanged.
    private static let racyWindow: Int64 = 20_000_000

    /// An observation of nothing yet.
    init() {}

    /// Records `folder`'s status (links followed: a search place may be a link to a folder);
    /// called just before the folder is listed.
    mutating func observe(_ folder: String) {
        entries.append((path: folder, status: try? Syscalls.stat(folder)))
    }

    /// Whether every folder still stats the same, and every absent one is still absent.
    func isCurrent() -> Bool {
        let trustedBefore = takenAt - Self.racyWindow
        for entry in entries {
            let now = try? Syscalls.stat(entry.path)
            guard now == entry.status else { return false }
            if let status = now,
                status.modificationNanoseconds >= trustedBefore || status.changeNanoseconds >= trustedBefore
            {
                return false
            }
        }
        return true
    }
}
