import Foundation

/// Where Appex keeps its state and looks for extensions.
///
/// Every API that touches disk takes one, so tests and tools point Appex at a temporary
/// directory instead of changing the process's environment.
public struct AppexEnvironment: Sendable, Hashable {
    /// The root of all Appex state (`APPEX_HOME`; default `$XDG_DATA_HOME/appex`, else
    /// `~/.local/share/appex`).
    public var home: String
    /// Folders searched for extensions beyond the host's own `Extensions/`
    /// (`APPEX_EXTENSIONS_PATH`, colon-separated).
    public var extensionSearchPath: [String]

    /// An environment rooted at `home`.
    public init(home: String, extensionSearchPath: [String] = []) {
        self.home = home
        self.extensionSearchPath = extensionSearchPath
    }

    /// The environment the process's variables describe (`APPEX_HOME`,
    /// `APPEX_EXTENSIONS_PATH`, `XDG_DATA_HOME`, `HOME`).
    public static func current() -> AppexEnvironment {
        from(variables: ProcessInfo.processInfo.environment)
    }

    /// The environment a set of variables describes.
    public static func from(variables: [String: String]) -> AppexEnvironment {
        let home: String
        if let explicit = variables["APPEX_HOME"], !explicit.isEmpty {
            home = explicit
        } else if let xdg = variables["XDG_DATA_HOME"], !xdg.isEmpty {
            home = xdg + "/appex"
        } else {
            home = (variables["HOME"] ?? NSHomeDirectory()) + "/.local/share/appex"
        }
        let searchPath = (variables["APPEX_EXTENSIONS_PATH"] ?? "")
            .split(separator: ":", omittingEmptySubsequences: true)
            .map(String.init)
        return AppexEnvironment(home: home, extensionSearchPath: searchPath)
    }

    /// `$APPEX_HOME/Registry`: where approval decisions live.
    public var registryDirectory: String { home + "/Registry" }

    /// `$APPEX_HOME/Registry/registry.sqlite`.
    public var registryPath: String { registryDirectory + "/registry.sqlite" }

    /// Creates `path` and its parents, private to the user (0700).
    public func makePrivateDirectory(_ path: String) throws(AppexError) {
        do {
            try Syscalls.makeDirectories(path, mode: 0o700)
        } catch {
            throw .fileSystem("create directory", path, error)
        }
    }

    /// Creates an empty file private to the user (0600) if none exists, so that tools that
    /// create it later (SQLite) inherit that mode.
    public func makePrivateFile(_ path: String) throws(AppexError) {
        do {
            try Syscalls.createFileIfMissing(path, mode: 0o600)
        } catch {
            throw .fileSystem("create file", path, error)
        }
    }
}
