#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// No Foundation here: AppexSystem is linked into every extension, and importing Foundation pulls
// Foundation and CoreFoundation into a statically linked one (a 28 MB benchmark extension became
// 77 MB, and each of host.extensions.100's processes +3 MB resident: decision 0168).
extension ProcessControl {
    /// The `.app` bundle this process's executable sits in, if any: whose widgets an app's
    /// reload request and Live Activities are.
    package static func containingApp() -> String? {
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(resolved) }
        var path = String(cString: resolved)
        while let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            path = String(path[..<slash])
            let name = path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...]
            if name.count > 4 && name.hasSuffix(".app") { return path }
        }
        return nil
    }
}
