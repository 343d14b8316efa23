import SystemPackage

// No Foundation here: AppexSystem is linked into every extension, and importing Foundation pulls
// Foundation and CoreFoundation into a statically linked one (a 28 MB benchmark extension became
// 77 MB, and each of host.extensions.100's processes +3 MB resident: decision 0168).
extension ProcessControl {
    /// The `.app` bundle this process's executable sits in, if any: whose widgets an app's
    /// reload request and Live Activities are.
    package static func containingApp() -> String? {
        guard let executable = try? Syscalls.realPath("/proc/self/exe") else { return nil }
        var folder = FilePath(executable)
        while folder.removeLastComponent() {
            if folder.extension == "app" { return folder.string }
        }
        return nil
    }
}
