import AppexCore
import AppexTesting
import AppexWidgetHost
import Foundation

/// The fixture widget extension (Tests/Fixtures/AppexFixtureWidget).
let widgetExecutable = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent()
    .appendingPathComponent("AppexFixtureWidget").path
/// Its containing app's executable (Tests/Fixtures/AppexFixtureWidgetApp).
let widgetAppExecutable = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent()
    .appendingPathComponent("AppexFixtureWidgetApp").path

/// An apps folder with `FixtureApp.app`, whose `Extensions/` holds the fixture widgets, both
/// signed by the world's team; and the environment that puts the folder on the apps path.
struct WidgetWorld {
    static let appIdentifier = "com.example.fixtureapp"
    static let widgetsIdentifier = "com.example.fixtureapp.widgets"

    let world: AppexTestEnvironment
    let apps: String
    let app: String
    let environment: AppexEnvironment

    init() throws {
        world = try AppexTestEnvironment(prefix: "appex-widgets")
        apps = world.root.appending("Applications")
        app = apps + "/FixtureApp.app"
        try FixtureBundles.makeHostApp(at: app, bundleIdentifier: Self.appIdentifier, extensionPoints: [])
        // The app's executable is the fixture app, which asks for reloads and takes opened URLs.
        try FileManager.default.removeItem(atPath: app + "/HostApp")
        try FileManager.default.copyItem(atPath: widgetAppExecutable, toPath: app + "/HostApp")
        try AppexBundle.sign(at: app, with: world.team)
        try FixtureBundles.bundle(
            executable: widgetExecutable,
            in: app + "/Extensions",
            name: "FixtureWidgets",
            bundleIdentifier: Self.widgetsIdentifier,
            signedBy: world.team
        )
        var environment = world.environment
        environment.appsPath = [apps]
        self.environment = environment
    }

    /// A widget host on this world, with test-sized intervals.
    func host(
        budget: Int = 40,
        deadline: Duration = .seconds(10),
        addressSpaceLimit: Bool = false,
        warmPeriod: Duration = .seconds(30),
        warmMemoryBudget: UInt64 = 64 << 20
    ) throws -> WidgetHost {
        var configuration = WidgetHost.Configuration(environment: environment)
        configuration.warmPeriod = warmPeriod
        configuration.warmMemoryBudget = warmMemoryBudget
        configuration.limitsMemoryByAddressSpace = addressSpaceLimit
        configuration.dailyReloadBudget = budget
        configuration.deadline = deadline
        configuration.minimumReloadInterval = .zero
        configuration.retryInterval = .seconds(3600)
        return try WidgetHost(configuration: configuration)
    }

    /// The variables of a process that lives in this world.
    var processVariables: [String: String] {
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment.variables) { _, new in new }
        return variables
    }

    /// How many timelines of `kind` the fixture extension has made.
    /// The fixture writes its log in its own container (its `HOME`: all its sandbox lets it
    /// write), so this adds up the logs of every widget bundle that runs it.
    func fetches(_ kind: String) -> Int {
        let containers = environment.home + "/Containers"
        let bundles = (try? FileManager.default.contentsOfDirectory(atPath: containers)) ?? []
        return bundles.reduce(0) { count, bundle in
            let path = containers + "/" + bundle + "/fixture-widget-fetches.log"
            let log = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return count + log.split(separator: "\n").filter { $0 == kind }.count
        }
    }

    /// Sets how the fixture's Victim widget behaves from its next launch (a file in its container).
    func setVictimMode(_ mode: String) throws {
        let container = environment.home + "/Containers/" + Self.widgetsIdentifier
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
        try mode.write(toFile: container + "/fixture-widget-mode", atomically: true, encoding: .utf8)
    }

    /// Runs the containing app's process: `reload [KIND]` asks for new timelines with WidgetCenter.
    func appRequestsReload(_ kind: String?) async throws -> ProcessOutput {
        try await run(app + "/HostApp", ["reload"] + (kind.map { [$0] } ?? []), environment: processVariables)
    }
}

extension [WidgetState] {
    /// The state of the widget of `kind`.
    func widget(_ kind: String) -> WidgetState? { first { $0.key.kind == kind } }
}

extension WidgetState {
    /// The texts of the entry shown at `date`.
    func texts(at date: Date = Date()) -> [String] { entry(at: date)?.tree?.texts ?? [] }
}
