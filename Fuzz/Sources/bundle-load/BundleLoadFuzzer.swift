import AppexCore
import Foundation
import FuzzSupport

/// Writes the input into an extension bundle and loads it with `AppexBundle.load(at:)`, as discovery and
/// `appex validate` load every bundle they find: Info.plist, entitlements, executable and seal are all read and
/// checked, and whatever is wrong must become one of the bundle's problems, never a crash or a hang.
///
/// The input is up to three parts split on `\n%%\n`: the bundle's `Info.plist`, its `Entitlements.plist` and its
/// seal (`_CodeSignature/CodeResources`). A part the input lacks is a file the bundle lacks; an empty part is an
/// empty file. The bundle also holds the executable the seeds' Info.plists name, `Fuzz`.
@main
enum BundleLoadFuzzer {
    static func main() {
        let bundle = FuzzBundle()
        LibFuzzer.run { input in
            bundle.replaceFiles(with: FuzzInput.parts(of: input, limit: 3))
            _ = AppexBundle.load(at: bundle.path)
        }
    }
}

/// `Fuzz.appex` in a temporary directory made once per process, in `/dev/shm` when there is one (rewriting it then
/// costs no disk I/O), else in `$TMPDIR`.
///
/// The directory is named for the process and removed when it exits normally; one left behind by a crash is removed
/// by the next run in the same place.
final class FuzzBundle {
    /// The files the input's parts become, in order.
    static let files = [AppexBundle.File.info, AppexBundle.File.entitlements, AppexBundle.File.seal]
    /// The executable the seeds' Info.plists name, as `FixtureBundles` writes one.
    static let executable = (name: "Fuzz", contents: "#!/bin/sh\nexit 0\n")
    /// The start of the temporary directory's name; its process ID follows.
    static let prefix = "appex-fuzz-bundle-"

    /// The bundle's path.
    let path: String

    /// Makes the directory and the bundle's executable; exits the process if it cannot.
    init() {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let parent = fileManager.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
            ? "/dev/shm" : (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
        for name in (try? fileManager.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(Self.prefix) {
            // kill(pid, 0) fails with ESRCH once the process is gone.
            if let pid = pid_t(name.dropFirst(Self.prefix.count)), kill(pid, 0) != 0 && errno == ESRCH {
                try? fileManager.removeItem(atPath: parent + "/" + name)
            }
        }
        let directory = parent + "/" + Self.prefix + String(getpid())
        try? fileManager.removeItem(atPath: directory)
        path = directory + "/Fuzz.appex"
        do {
            try fileManager.createDirectory(atPath: path + "/_CodeSignature", withIntermediateDirectories: true)
        } catch {
            Self.fail("cannot make \(path): \(error)")
        }
        FuzzBundle.removeAtExit = directory
        atexit { FuzzBundle.removeAtExit.map { try? FileManager.default.removeItem(atPath: $0) } }
        writeFile(ArraySlice(Self.executable.contents.utf8), to: path + "/" + Self.executable.name, mode: 0o755)
    }

    /// Replaces the bundle's files with `parts`; the files past the last part are removed.
    func replaceFiles(with parts: [ArraySlice<UInt8>]) {
        for (index, file) in Self.files.enumerated() {
            if index < parts.count {
                writeFile(parts[index], to: path + "/" + file, mode: 0o644)
            } else {
                unlink(path + "/" + file)
            }
        }
    }

    private func writeFile(_ bytes: ArraySlice<UInt8>, to file: String, mode: mode_t) {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { Self.fail("cannot write \(file): errno \(errno)") }
        defer { close(descriptor) }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { Self.fail("cannot write \(file): errno \(errno)") }
                offset += written
            }
        }
    }

    /// The directory `atexit` removes: a C callback cannot capture it. Written once, before fuzzing starts.
    nonisolated(unsafe) private static var removeAtExit: String?

    /// Stops the process: the harness, not Appex, failed, so this is no finding.
    private static func fail(_ message: String) -> Never {
        var line = "bundle-load: \(message)\n"
        line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(2)
    }
}
