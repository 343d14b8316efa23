package import AppexSystem
package import AppexVocabulary
import Crypto
import Synchronization

extension AppexBundle {
    /// Opens the bundle's executable once and checks it against the seal over that descriptor:
    /// the returned file is the one that was checked, so executing it (not its path) runs exactly
    /// what the seal covers, even if the path is swapped in between.
    ///
    /// A file already checked and unchanged since (the same device, inode, size and times, as the
    /// open descriptor says) is not hashed again. With `strict` (enhanced security) the seal is
    /// read and verified at every launch, and the executable is hashed again unless
    /// ``proveUnchangedSinceExec(_:checkedAt:)`` proved it unchanged since a process last ran it.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the executable or the seal cannot be read,
    ///   the seal does not verify for the bundle's team, or the file is not the one it seals.
    package func openSealedExecutable(strict: Bool = false) throws(AppexError) -> OpenedExecutable {
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
        if !strict, known != nil { return opened }
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
        if let known, known.digest == sealed, known.provenSinceExec { return opened }
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
        return opened
    }

    /// Hashes `opened` again after a process was started from it (its exec succeeded) and
    /// records, when it holds, that the file cannot have changed since without changing its
    /// status: the next strict check of the same status skips the hash. Does nothing for a file
    /// already proven.
    ///
    /// Why that holds: Linux refuses to exec a file that anything has open for writing
    /// (`ETXTBSY`), so at the exec no writable descriptor or shared writable mapping of it
    /// existed; every later change must open it for writing, and every write, truncation or
    /// first write to a newly mapped page sets its change time, which no call can set back.
    /// A change made between the check and the exec through a mapping written to before the
    /// check (which sets no time) is what this hash catches. Only a binary is hashed (a script's
    /// interpreter, not the script, is what exec write-denies), on a local file system
    /// (``OpenedExecutable/isOnLocalFileSystem``); the proof is recorded only when its change time
    /// was at least a second older than `checkedAt` (the wall clock at the check, before the
    /// spawn), so that no later write can share its timestamp's tick.
    ///
    /// - Returns: `false` when the file is not what its seal covers: the process runs something
    ///   else, and must be ended. `true` otherwise, whether or not a proof was recorded.
    package func proveUnchangedSinceExec(_ opened: OpenedExecutable, checkedAt: Int64) -> Bool {
        guard let team, !opened.isScript, opened.isOnLocalFileSystem else { return true }
        let identity = CheckedExecutable(status: opened.status, team: team.rawValue)
        guard let known = Self.checkedExecutables.withLock({ $0[identity] }), !known.provenSinceExec else {
            return true
        }
        guard let digest = try? Self.sha256(of: opened), let after = try? opened.currentStatus() else { return true }
        if digest != known.digest { return false }
        guard after == opened.status, opened.status.changeNanoseconds < checkedAt - 1_000_000_000 else { return true }
        Self.checkedExecutables.withLock { checked in
            if checked[identity]?.digest == digest { checked[identity]?.provenSinceExec = true }
        }
        return true
    }

    /// Whether the executable at `path`, as it is now, was proven unchanged since a process of
    /// it last ran (``proveUnchangedSinceExec(_:checkedAt:)``): its next strict check will not
    /// hash it.
    package static func isProvenUnchangedSinceExec(_ path: String, team: TeamIdentifier) -> Bool {
        guard let status = try? Syscalls.stat(path) else { return false }
        let identity = CheckedExecutable(status: status, team: team.rawValue)
        return checkedExecutables.withLock { $0[identity]?.provenSinceExec ?? false }
    }

    private static func sha256(of opened: OpenedExecutable) throws(SystemError) -> [UInt8] {
        var hasher = SHA256()
        try opened.readChunks { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }

    /// Executables hashed and found sealed, by identity and times, with the digest their seal
    /// gave and whether they were proven unchanged since an exec.
    private static let checkedExecutables = Mutex<[CheckedExecutable: CheckedExecutable.Check]>([:])
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
