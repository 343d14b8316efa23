import AppexSystem
import AppexVocabulary
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
    /// Where the keys that protect the shared keychain live: outside `home`, so a copy of the
    /// state (a backup, a synced folder, a stray `cp -r`) does not carry the keys that open it
    /// (`APPEX_KEYS_DIR`; default `$XDG_CONFIG_HOME/appex/keys`, else `~/.config/appex/keys`;
    /// for an explicit `home`, `<home>-keys` beside it).
    public var keysDirectory: String
    /// Where installed apps are: `.app` bundles, or folders of them (`APPEX_APPS_PATH`,
    /// colon-separated; default `~/Applications`). The system's widget host finds widgets in
    /// these apps' `Extensions/`.
    public var appsPath: [String]
    /// The time of day stores read for leases, delays, lifetimes, budgets and expiry: the
    /// system's, unless `APPEX_CLOCK_OFFSET` (seconds) shifts it (see ``AppexClock``).
    public var clock: AppexClock = .system

    /// An environment rooted at `home`, its keys in `keysDirectory` (default `<home>-keys`).
    public init(
        home: String,
        extensionSearchPath: [String] = [],
        keysDirectory: String? = nil,
        appsPath: [String] = []
    ) {
        self.home = home
        self.extensionSearchPath = extensionSearchPath
        self.appsPath = appsPath
        var trimmed = home
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.keysDirectory = keysDirectory ?? trimmed + "-keys"
    }

    /// The environment the process's variables describe (`APPEX_HOME`, `APPEX_KEYS_DIR`,
    /// `APPEX_EXTENSIONS_PATH`, `APPEX_APPS_PATH`, `APPEX_CLOCK_OFFSET`, `XDG_DATA_HOME`,
    /// `XDG_CONFIG_HOME`, `HOME`). An offset that is not a number is ignored: the system's clock.
    public static func current() -> AppexEnvironment {
        from(variables: ProcessInfo.processInfo.environment)
    }

    /// The environment a set of variables describes.
    public static func from(variables: [String: String]) -> AppexEnvironment {
        let userHome = variables["HOME"] ?? NSHomeDirectory()
        let home = StateRoot.home(variables: variables, userHome: userHome)
        var keys: String?
        if variables["APPEX_HOME"]?.isEmpty ?? true {
            if let xdg = variables["XDG_CONFIG_HOME"], !xdg.isEmpty {
                keys = xdg + "/appex/keys"
            } else {
                keys = userHome + "/.config/appex/keys"
            }
        }
        if let explicit = variables["APPEX_KEYS_DIR"], !explicit.isEmpty { keys = explicit }
        let searchPath = (variables["APPEX_EXTENSIONS_PATH"] ?? "")
            .split(separator: ":", omittingEmptySubsequences: true)
            .map(String.init)
        var appsPath = (variables["APPEX_APPS_PATH"] ?? "")
            .split(separator: ":", omittingEmptySubsequences: true)
            .map(String.init)
        if variables["APPEX_APPS_PATH"] == nil { appsPath = [userHome + "/Applications"] }
        var environment = AppexEnvironment(
            home: home,
            extensionSearchPath: searchPath,
            keysDirectory: keys,
            appsPath: appsPath
        )
        if let offset = variables["APPEX_CLOCK_OFFSET"].flatMap(Double.init), offset.isFinite {
            environment.clock = .shifted(by: .milliseconds(offset * 1000))
        }
        return environment
    }

    /// The variables that describe this environment to a child process (`APPEX_CLOCK_OFFSET`
    /// only for a shifted clock: its offset now).
    public var variables: [String: String] {
        var variables = [
            "APPEX_HOME": home, "APPEX_KEYS_DIR": keysDirectory,
            "APPEX_EXTENSIONS_PATH": extensionSearchPath.joined(separator: ":"),
            "APPEX_APPS_PATH": appsPath.joined(separator: ":"),
        ]
        if clock != .system {
            variables["APPEX_CLOCK_OFFSET"] = String(clock.offsetSeconds)
        }
        return variables
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
