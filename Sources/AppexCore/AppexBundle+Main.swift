import AppexSystem
import AppexVocabulary
import Foundation
import Synchronization

extension AppexBundle {
    /// The path of the app bundle the running process belongs to, found as `Bundle.main` is:
    /// `APPEX_MAIN_BUNDLE` when set (an explicit override, for a program run from outside its
    /// bundle), else the nearest folder named `*.app` that holds the running executable.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `not-found`, saying where it looked, when the executable is in
    ///   no `.app` and no override is set.
    public static func mainBundlePath() throws(AppexError) -> String {
        if let override = ProcessInfo.processInfo.environment["APPEX_MAIN_BUNDLE"], !override.isEmpty {
            return normalized(override)
        }
        let executable: String
        do { executable = try Syscalls.realPath("/proc/self/exe") } catch {
            throw AppexError(
                .notFound,
                "cannot find the running app's bundle: /proc/self/exe is unreadable; set APPEX_MAIN_BUNDLE",
                underlyingError: error
            )
        }
        var folder = executable
        while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
            if folder.hasSuffix(".app") { return folder }
        }
        throw AppexError(
            .notFound,
            "the running executable \(executable) is not inside an .app bundle; run it from its app, or set APPEX_MAIN_BUNDLE to the app's path",
            context: AppexError.Context(path: executable)
        )
    }

    /// The bundle identifier of the running app (``mainBundlePath()``'s Info.plist), or `nil`
    /// when there is no such bundle or it names none. Read once per process.
    public static var mainBundleIdentifier: String? {
        mainIdentifier.withLock { cached in
            if let known = cached { return known }
            // Its Info.plist alone: naming a point needs no seal check (launching and the
            // stores check the bundle where it matters).
            let value = (try? mainBundlePath()).flatMap { path in
                FileManager.default.contents(atPath: path + "/" + File.info).flatMap { data in
                    BundleInfo(data: Array(data), file: path + "/" + File.info, role: .hostApp).bundleIdentifier
                }
            }
            cached = .some(value)
            return value
        }
    }

    private static let mainIdentifier = Mutex<String??>(nil)
}
