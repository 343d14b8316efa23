import AppexSystem
import AppexVocabulary
import Crypto
import Foundation
import Synchronization

// MARK: - Loading

struct BundleLoader {
    let root: String
    let kind: AppexBundle.Kind
    var problems: [BundleProblem] = []
    /// Whether the bundle is loaded for the process that runs it: its executable must be the
    /// process's image (``runningImage``), and then it is not hashed (its launcher hashed it
    /// before exec, and a running executable cannot be written).
    var runningImageRequired = false
    /// The running process's image (`/proc/self/exe`); `nil` when it cannot be read.
    var runningImage: FileStatus?
    /// Seals already verified, whose signatures are not checked again; `nil`: check each.
    var verifications: SealVerifications?

    init(root: String, kind: AppexBundle.Kind) {
        self.root = root
        self.kind = kind
    }

    mutating func load() -> AppexBundle {
        let infoPath = root + "/" + AppexBundle.File.info
        let walk: BundleWalk
        do {
            walk = try BundleWalk(root: root, kind: kind)
        } catch {
            let problem = BundleProblem(
                .unreadableFile,
                file: root,
                message: "cannot read the bundle directory: \(error)"
            )
            return AppexBundle(
                path: root,
                kind: kind,
                info: BundleInfo(data: [], file: infoPath, role: .hostApp).replacingProblems([problem]),
                entitlements: .none,
                team: nil,
                extensionPoints: [],
                problems: [problem],
                fileCount: 0,
                observation: BundleObservation(entries: []),
                directories: [root]
            )
        }
        let statuses = Dictionary(walk.entries.map { ($0.relativePath, $0.status) }, uniquingKeysWith: { a, _ in a })
        for entry in walk.unsupported {
            problems.append(
                BundleProblem(
                    .unsupportedFile,
                    file: root + "/" + entry.path,
                    message: "\(entry.path) cannot be sealed: \(entry.reason)"
                )
            )
        }

        // Hash every file once; keep the bytes of the plists we parse.
        var digests: [String: [UInt8]] = [:]
        var imageEntries: [String] = []
        var infoBytes: [UInt8]?
        var entitlementsBytes: [UInt8]?
        var pointFiles: [(String, [UInt8])] = []
        for entry in walk.entries where entry.status.kind == .regular {
            let path = root + "/" + entry.relativePath
            let wanted =
                entry.relativePath == AppexBundle.File.info
                || entry.relativePath == AppexBundle.File.entitlements
                || (kind == .hostApp && entry.relativePath.hasPrefix(AppexBundle.File.extensionPoints + "/")
                    && entry.relativePath.hasSuffix("." + ExtensionPointDeclaration.fileExtension))
            if let image = runningImage, entry.status.device == image.device, entry.status.inode == image.inode {
                // Perhaps the running image (vouched for by the launch, see `runningImage`):
                // hashed below unless it is the bundle's executable.
                imageEntries.append(entry.relativePath)
                continue
            }
            do {
                if wanted {
                    let bytes = try Syscalls.readFile(path, limit: 4 * 1024 * 1024)
                    digests[entry.relativePath] = Array(SHA256.hash(data: bytes))
                    switch entry.relativePath {
                    case AppexBundle.File.info: infoBytes = bytes
                    case AppexBundle.File.entitlements: entitlementsBytes = bytes
                    default: pointFiles.append((entry.relativePath, bytes))
                    }
                } else {
                    digests[entry.relativePath] = try AppexBundle.sha256(ofFile: path)
                }
            } catch {
                problems.append(BundleProblem(.unreadableFile, file: path, message: "cannot read: \(error)"))
            }
        }

        // Info.plist
        let info: BundleInfo
        if let infoBytes {
            info = BundleInfo(data: infoBytes, file: infoPath, role: kind == .appExtension ? .appExtension : .hostApp)
        } else {
            info = BundleInfo(data: [], file: infoPath, role: .hostApp)
                .replacingProblems([
                    BundleProblem(.unreadableFile, file: infoPath, message: "the bundle has no Info.plist")
                ])
        }
        problems += info.problems

        // Entitlements
        var entitlements = Entitlements.none
        if let entitlementsBytes {
            entitlements = Entitlements(data: entitlementsBytes, file: root + "/" + AppexBundle.File.entitlements)
            problems += entitlements.problems
        }

        // Executable
        if let executable = info.executableName, !executable.isEmpty, !executable.contains("/"),
            BuildSettings.unexpandedNames(in: executable).isEmpty
        {
            let executablePath = root + "/" + executable
            switch statuses[executable] {
            case nil:
                problems.append(
                    BundleProblem(
                        .missingExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is missing"
                    )
                )
            case let status? where status.kind == .symbolicLink:
                if let target = try? Syscalls.stat(executablePath), target.kind == .regular, target.isExecutable {
                    break
                }
                problems.append(
                    BundleProblem(
                        .notExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is a link to nothing executable"
                    )
                )
            case let status? where status.kind != .regular:
                problems.append(
                    BundleProblem(
                        .notExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is not a regular file"
                    )
                )
            case let status? where !status.isExecutable:
                problems.append(
                    BundleProblem(
                        .notExecutable,
                        file: executablePath,
                        key: BundleInfo.Key.executable,
                        message: "the executable named by CFBundleExecutable is not executable (mode lacks x)"
                    )
                )
            default:
                break
            }
        }

        // Extension point declarations (hosts)
        var declarations: [ExtensionPointDeclaration] = []
        if kind == .hostApp {
            for (relative, bytes) in pointFiles.sorted(by: { $0.0 < $1.0 }) {
                switch ExtensionPointDeclaration.read(
                    data: bytes,
                    file: root + "/" + relative,
                    hostBundleIdentifier: info.bundleIdentifier
                ) {
                case .success(let declaration): declarations.append(declaration)
                case .failure(let list): problems += list.problems
                }
            }
        }

        // The running image goes unhashed only as the bundle's executable itself (not through a
        // link, not as another file that is a hard link to it).
        let executableName = info.executableName ?? ""
        for path in imageEntries where path != executableName {
            do {
                digests[path] = try AppexBundle.sha256(ofFile: root + "/" + path)
            } catch {
                problems.append(
                    BundleProblem(.unreadableFile, file: root + "/" + path, message: "cannot read: \(error)")
                )
            }
        }

        // Seal
        let team = verifySeal(
            walk: walk,
            digests: digests,
            unhashed: imageEntries.contains(executableName) ? executableName : nil
        )
        if runningImageRequired {
            // The executable, followed if it is a link, must be the image this process runs.
            let path = root + "/" + executableName
            let running = runningImage.flatMap { image in
                (try? Syscalls.stat(path)).map { $0.device == image.device && $0.inode == image.inode }
            }
            if running != true {
                problems.append(
                    BundleProblem(
                        .fileModified,
                        file: path,
                        message: runningImage == nil
                            ? "cannot tell which executable this process runs (/proc/self/exe cannot be read): it cannot take the bundle's identity"
                            : "this process does not run the bundle's executable \(executableName): it cannot take the bundle's identity"
                    )
                )
            }
        }

        return AppexBundle(
            path: root,
            kind: kind,
            info: info,
            entitlements: entitlements,
            team: team,
            extensionPoints: declarations,
            problems: problems,
            fileCount: walk.entries.count { $0.status.kind != .directory },
            observation: walk.observation,
            directories: [root]
                + walk.entries.filter { $0.status.kind == .directory }.map { root + "/" + $0.relativePath }
        )
    }

    /// `unhashed`: the one file left unhashed on purpose (the running image); any other regular
    /// file without a digest could not be read, and is a problem already.
    private mutating func verifySeal(
        walk: BundleWalk,
        digests: [String: [UInt8]],
        unhashed: String? = nil
    ) -> TeamIdentifier? {
        let sealPath = root + "/" + AppexBundle.File.seal
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(sealPath, limit: CodeSeal.maximumSize)
        } catch  where error.errno == .noSuchFileOrDirectory {
            problems.append(
                BundleProblem(
                    .unsigned,
                    file: sealPath,
                    message:
                        "the bundle is not signed (no _CodeSignature/CodeResources); sign it with `appex sign \(root) --key TEAM.key`"
                )
            )
            return nil
        } catch  where error.errno == .fileTooLarge {
            problems.append(
                BundleProblem(
                    .badSignature,
                    file: sealPath,
                    message: "the seal is larger than \(CodeSeal.maximumSize) bytes, the most a seal may be"
                )
            )
            return nil
        } catch {
            problems.append(BundleProblem(.badSignature, file: sealPath, message: "cannot read the seal: \(error)"))
            return nil
        }
        let seal: CodeSeal
        do {
            seal = try CodeSeal(bytes: bytes)
        } catch {
            problems.append(
                BundleProblem(.badSignature, file: sealPath, message: "the seal is malformed: \(error.reason)")
            )
            return nil
        }
        guard verifications?.isAuthentic(seal, bytes: bytes) ?? seal.isAuthentic else {
            problems.append(
                BundleProblem(
                    .badSignature,
                    file: sealPath,
                    message:
                        "the seal's signature does not verify for team \(seal.teamIdentifier): the seal was altered or not made with that team's key"
                )
            )
            return nil
        }
        var present: Set<String> = []
        for entry in walk.entries where entry.status.kind != .directory {
            let path = entry.relativePath
            present.insert(path)
            let full = root + "/" + path
            guard let sealed = seal.entries[path] else {
                problems.append(
                    BundleProblem(.fileAdded, file: full, message: "\(path) was added after the bundle was signed")
                )
                continue
            }
            switch (sealed, entry.status.kind) {
            case (.file(let digest, let executable), .regular):
                if digests[path] == nil && path != unhashed
                    && !problems.contains(where: { $0.kind == .unreadableFile && $0.file == full })
                {
                    // Every regular file but the one left unhashed on purpose has a digest.
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) could not be checked against the seal"
                        )
                    )
                } else if let actual = digests[path], actual != digest {
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) was modified after the bundle was signed"
                        )
                    )
                } else if executable != entry.status.isExecutable {
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) changed its executable permission after the bundle was signed"
                        )
                    )
                }
            case (.symbolicLink(let target), .symbolicLink):
                if (try? Syscalls.readLink(full)) != target {
                    problems.append(
                        BundleProblem(
                            .fileModified,
                            file: full,
                            message: "\(path) points elsewhere than when the bundle was signed"
                        )
                    )
                }
            default:
                problems.append(
                    BundleProblem(
                        .fileModified,
                        file: full,
                        message: "\(path) changed type after the bundle was signed"
                    )
                )
            }
        }
        for path in seal.entries.keys.sorted() where !present.contains(path) {
            problems.append(
                BundleProblem(
                    .fileRemoved,
                    file: root + "/" + path,
                    message: "\(path) was removed after the bundle was signed"
                )
            )
        }
        return seal.teamIdentifier
    }
}

extension BundleInfo {
    func replacingProblems(_ problems: [BundleProblem]) -> BundleInfo {
        var copy = self
        copy.problems = problems
        return copy
    }
}
