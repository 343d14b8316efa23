package import AppexSystem
package import AppexVocabulary
import Crypto
import Synchronization

extension AppexBundle {
    /// Opens the bundle's executable once and checks it against the seal over that descriptor:
    /// the returned file is the one that was checked, so executing it (not its path) runs exactly
    /// what the seal covers, even if the path is swapped in between. Also returns the SHA-256 the
    /// seal gives the executable: what ``proveUnchangedSinceExec(_:sealed:checkedAt:)`` compares
    /// it with after the exec.
    ///
    /// A file already checked and unchanged since (the same device, inode, size and times, as the
    /// open descriptor says) is not hashed again. With `strict` (enhanced security) the seal is
    /// read and verified at every launch, and the executable is hashed again unless
    /// ``proveUnchangedSinceExec(_:sealed:checkedAt:)`` proved it unchanged since a process last
    /// ran it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the executable or the seal cannot be read,
    ///   the seal does not verify for the bundle's team, or the file is not the one it seals.
    package func openCheckedExecutable(strict: Bool) throws(AppexError) -> (file: OpenedExecutable, sealed: [UInt8]) {
        guard let name = info.executableName, let team else {
            throw AppexError(
                .invalidBundle,
                "\(path) has no signed executable to launch",
                context: AppexError.Context(path: path)
            )
        }
        let executablePath = path + "/" + name
        let context = AppexError.Context(path: executablePath)
        let opened: OpenedExecutable
        do { opened = try OpenedExecutable.open(executablePath) } catch {
            throw AppexError(
                .invalidBundle,
                "cannot open the executable \(executablePath)",
                context: context,
                underlyingError: error
            )
        }
        let identity = CheckedExecutable(status: opened.status, team: team.rawValue)
        let known = Self.checkedExecutables.withLock { $0[identity] }
        if !strict, let known { return (opened, known.digest) }
        let sealPath = path + "/" + File.seal
        let seal: CodeSeal
        do {
            seal = try CodeSeal(bytes: Syscalls.readFile(sealPath, limit: CodeSeal.maximumSize))
        } catch {
            throw AppexError(
                .invalidBundle,
                "cannot read the seal \(sealPath) to check \(executablePath) before it runs",
                context: AppexError.Context(path: sealPath),
                underlyingError: error
            )
        }
        guard seal.isAuthentic, seal.teamIdentifier == team else {
            throw AppexError(
                .invalidBundle,
                "the seal \(sealPath) no longer verifies for team \(team): the bundle changed since it was discovered",
                context: AppexError.Context(path: sealPath)
            )
        }
        guard case .file(let sealed, true)? = seal.entries[name] else {
            throw AppexError(
                .invalidBundle,
                "the seal \(sealPath) does not cover \(name) as an executable file",
                context: context
            )
        }
        if let known, known.digest == sealed, known.provenSinceExec { return (opened, sealed) }
        let digest: [UInt8]
        do { digest = try Self.sha256(of: opened) } catch {
            throw AppexError(.invalidBundle, "cannot read \(executablePath)", context: context, underlyingError: error)
        }
        guard digest == sealed else {
            throw AppexError(
                .invalidBundle,
                "\(executablePath) is not the executable its seal covers (its SHA-256 differs): the file changed after signing; it was not run",
                context: context
            )
        }
        // Written while being hashed (same inode, new times): what was hashed may not be what runs.
        guard (try? opened.currentStatus()) == opened.status else {
            throw AppexError(
                .invalidBundle,
                "\(executablePath) changed while it was being checked; it was not run",
                context: context
            )
        }
        Self.checkedExecutables.withLock { checked in
            if checked.count > 256 { checked.removeAll() }
            if checked[identity]?.digest != sealed {
                checked[identity] = CheckedExecutable.Check(digest: sealed, provenSinceExec: false)
            }
        }
        return (opened, sealed)
    }

    /// Hashes `opened` again after a process was started from it (its exec succeeded, and the
    /// process still runs) and records, when it holds, that the file cannot have changed since
    /// without changing its status: the next strict check of the same status skips the hash.
    /// Does nothing for a file already proven.
    ///
    /// Why that holds: Linux refuses to exec a file that anything has open for writing, and
    /// refuses to open a running executable for writing (`ETXTBSY`), so while the process runs no
    /// writable descriptor or shared writable mapping of the file exists. Every later change must
    /// open it for writing, and every write, truncation or first write to a newly mapped page sets
    /// its change time (on the file systems of ``OpenedExecutable/isOnLocalFileSystem``; not on
    /// tmpfs, whose mapped pages set no time), which no call can set back. The write-denial is
    /// tried, not assumed (``OpenedExecutable/isWriteDenied``): a kernel or file that does not
    /// give it gets no proof. A change made between the check and the exec through a mapping
    /// written to before the check (which sets no time) is what this hash catches. Only a binary
    /// is proven (a script's interpreter, not the script, is what the exec write-denies), and
    /// only when its change time was at least 100 ms older than `checkedAt` (the wall clock at
    /// the check, before the spawn): a later write cannot share its timestamp's tick (a jiffy,
    /// 10 ms at most).
    ///
    /// - Parameter sealed: the SHA-256 the seal gave the executable at the check.
    /// - Returns: `false` when the file is not what its seal covers, or its status changed after
    ///   the check, or it cannot be read: what runs may not be what was checked, and the process
    ///   must be ended. `true` otherwise, whether or not a proof was recorded.
    package func proveUnchangedSinceExec(_ opened: OpenedExecutable, sealed: [UInt8], checkedAt: Int64) -> Bool {
        guard let team, !opened.isScript, opened.isOnLocalFileSystem else { return true }
        let identity = CheckedExecutable(status: opened.status, team: team.rawValue)
        if Self.checkedExecutables.withLock({ $0[identity]?.provenSinceExec == true }) { return true }
        let denied = opened.isWriteDenied
        guard let digest = try? Self.sha256(of: opened), let after = try? opened.currentStatus(),
            digest == sealed, after == opened.status
        else { return false }
        guard denied, opened.status.changeNanoseconds < checkedAt - 100_000_000 else { return true }
        Self.checkedExecutables.withLock { checked in
            checked[identity] = CheckedExecutable.Check(digest: digest, provenSinceExec: true)
        }
        return true
    }

    /// How many times the executable at `path` was hashed by a launch's check or proof: what
    /// tests read to see a proven launch skip the hash.
    package static func timesHashed(_ path: String) -> Int {
        hashCounts.withLock { $0[path] ?? 0 }
    }

    /// Whether the executable at `path`, as it is now, was proven unchanged since a process of
    /// it last ran (``proveUnchangedSinceExec(_:sealed:checkedAt:)``): its next strict check will not
    /// hash it.
    package static func isProvenUnchangedSinceExec(_ path: String, team: TeamIdentifier) -> Bool {
        guard let status = try? Syscalls.stat(path) else { return false }
        let identity = CheckedExecutable(status: status, team: team.rawValue)
        return checkedExecutables.withLock { $0[identity]?.provenSinceExec ?? false }
    }

    private static func sha256(of opened: OpenedExecutable) throws(SystemError) -> [UInt8] {
        hashCounts.withLock { $0[opened.path, default: 0] += 1 }
        var hasher = SHA256()
        try opened.readChunks { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }

    /// Executables hashed and found sealed, by identity and times, with the digest their seal
    /// gave and whether they were proven unchanged since an exec.
    private static let checkedExecutables = Mutex<[CheckedExecutable: CheckedExecutable.Check]>([:])

    /// Hashes made, by executable path (``timesHashed(_:)``).
    private static let hashCounts = Mutex<[String: Int]>([:])
}

/// An executable found to match its seal: the file as `fstat` saw it, and the signing team.
private struct CheckedExecutable: Hashable, Sendable {
    var status: FileStatus
    var team: String

    struct Check: Sendable {
        var digest: [UInt8]
        var provenSinceExec: Bool
    }
}
