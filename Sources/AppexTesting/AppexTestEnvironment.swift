public import AppexCore
import Foundation

/// A private `APPEX_HOME`, an extension search folder and a signing team, all in a temporary
/// directory: what a test of discovery, launching or sharing starts from.
public final class AppexTestEnvironment: Sendable {
    /// The temporary directory that holds everything.
    public let root: TemporaryDirectory
    /// The environment to hand to Appex APIs (`home`, one search folder, and ``clock``).
    public let environment: AppexEnvironment
    /// The environment's clock, shifted by zero at the start: a test moves it
    /// (`try world.clock.advance(by: .seconds(31))`) instead of sleeping until a lease, a
    /// passcode delay, a request's lifetime or a token runs out. A child process started with
    /// ``processVariables`` reads the offset it had then.
    public var clock: AppexClock { environment.clock }
    /// A folder on the search path where tests install extensions from "elsewhere".
    public let searchFolder: String
    /// A team key, for signing fixtures.
    public let team: SigningKey

    /// Makes a new environment.
    public init(prefix: String = "appex-test") throws {
        root = try TemporaryDirectory(prefix: prefix)
        searchFolder = root.appending("Installed")
        try FileManager.default.createDirectory(atPath: searchFolder, withIntermediateDirectories: true)
        var environment = AppexEnvironment(home: root.appending("Home"), extensionSearchPath: [searchFolder])
        environment.clock = .shifted(by: .zero)
        self.environment = environment
        team = SigningKey.generate()
    }

    /// The variables a child process needs to see this environment (`APPEX_HOME`,
    /// `APPEX_EXTENSIONS_PATH`, `APPEX_CLOCK_OFFSET`), merged over the current process's.
    public var processVariables: [String: String] {
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment.variables) { _, new in new }
        return variables
    }
}
