// The bare-spawn baselines' children (Fixtures/FirstByte, Fixtures/BareEcho) and the C echo
// extension (Examples/Polyglot/C/echo.c), built with the C compiler as plain libc programs.
// SwiftPM links every executable target with the Swift runtime (libswiftCore, libstdc++: +1.5 ms
// a spawn, +4 MB resident), which a bare C child does not load, so these are compiled here, once
// per benchmark process, and never by the package.
import Foundation
import Synchronization

/// The bare C children the launch baselines spawn.
public enum BareChild {
    /// The path of fixture `name` (Fixtures/NAME/main.c) built as a libc-only executable, made
    /// once in the benchmark's temporary directory.
    public static func path(of name: String) -> String {
        path(of: name, compiling: benchmarks.appendingPathComponent("Fixtures/\(name)/main.c").path)
    }

    /// The C echo extension of Examples/Polyglot/C (libc only, written from docs/protocol.md),
    /// built as `CEcho`, made once in the benchmark's temporary directory.
    public static var polyglotEcho: String {
        path(
            of: "CEcho",
            compiling: benchmarks.deletingLastPathComponent().appendingPathComponent("Examples/Polyglot/C/echo.c").path
        )
    }

    /// The Benchmarks folder.
    private static var benchmarks: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// `source` built as a libc-only executable named `name`, once per process.
    private static func path(of name: String, compiling source: String) -> String {
        built.withLock { paths in
            if let path = paths[name] { return path }
            let directory = NSTemporaryDirectory() + "/appex-bare-children-\(getpid())"
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let output = directory + "/" + name
            let compiler = Process()
            compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            compiler.arguments = [compilerName, "-O2", "-o", output, source]
            do { try compiler.run() } catch {
                FileHandle.standardError.write(Data("bench: cannot run \(compilerName) for \(source): \(error)\n".utf8))
                exit(1)
            }
            compiler.waitUntilExit()
            guard compiler.terminationStatus == 0 else {
                FileHandle.standardError.write(Data("bench: \(compilerName) failed on \(source)\n".utf8))
                exit(1)
            }
            paths[name] = output
            return output
        }
    }

    /// The toolchain's clang (beside swift), else the system's cc.
    private static var compilerName: String {
        ProcessInfo.processInfo.environment["CC"] ?? "clang"
    }

    private static let built = Mutex<[String: String]>([:])
}
