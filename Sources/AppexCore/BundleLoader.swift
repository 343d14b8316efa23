import AppexSystem
import Crypto
import Foundation
import Synchronization

// MARK: - Loading

struct BundleLoader {
    let root: String
    let kind: AppexBundle.Kind
    var problems: [BundleProblem] = []
    /// When loading the bundle of the running process: its image (`/proc/self/exe`). The file
    /// that is that image is not hashed (its launcher hashed it before exec, and a running
    /// executable cannot be written); the bundle's executable must be it.
    var runningImage: FileStatus?

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
                continue  // the running image: vouched for by the launch (see `runningImage`)
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

        // Seal
        let team = verifySeal(walk: walk, digests: digests)
        if let image = runningImage {
            // Not hashed above only because it is the running image: it must be the executable.
            let name = info.executableName ?? ""
            let status = walk.entries.first { $0.relativePath == name }?.status
            if status?.device != image.device || status?.inode != image.inode {
                problems.append(
                    BundleProblem(
                        .fileModified,
                        file: root + "/" + name,
                        message:
                            "this process does not run the bundle's executable \(name): it cannot take the bundle's identity"
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

    private mutating func verifySeal(walk: BundleWalk, digests: [String: [UInt8]]) -> TeamIdentifier? {
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
        guard seal.isAuthentic else {
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
                if let actual = digests[path], actual != digest {
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
