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
    /// open descriptor says) is not hashed again unless `always`; enhanced security hashes at
    /// every launch.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `invalidBundle` when the executable or the seal cannot be read,
    ///   the seal does not verify for the bundle's team, or the file is not the one it seals.
    package func openSealedExecutable(always: Bool = false) throws(AppexError) -> OpenedExecutable {
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
        if !always, Self.checkedExecutables.withLock({ $0.contains(identity) }) { return opened }
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
        var hasher = SHA256()
        do { try opened.readChunks { hasher.update(bufferPointer: $0) } } catch {
            throw AppexError(.invalidBundle, "cannot read \(executablePath)", context: context, underlyingError: error)
        }
        guard Array(hasher.finalize()) == sealed else {
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
            checked.insert(identity)
        }
        return opened
    }

    /// Executables hashed and found sealed, by identity and times: an unchanged one is not
    /// hashed again at its next launch.
    private static let checkedExecutables = Mutex<Set<CheckedExecutable>>([])
}

/// An executable found to match its seal: the file as `fstat` saw it, and the signing team.
private struct CheckedExecutable: Hashable, Sendable {
    var status: FileStatus
    var team: String
}
