import AppexCore
import AppexSalesforce
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// The settable data-sharing helper (the Salesforce SDK's `SFSDKDatasharingHelper`) and the
/// defaults it names (`msdkUserDefaults`).
@Suite(.timed) struct DataSharingHelperTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let group = "group.com.salesforce.mobilesyncexplorer"
    static let bundle = "com.salesforce.mobilesyncexplorer"

    func context(_ id: String = Self.bundle, groups: [String] = [Self.group]) -> ProcessContext {
        ProcessContext(
            bundleIdentifier: id,
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: groups, keychainAccessGroups: [])
        )
    }

    /// What `AppexFixtureStore sharing-read` prints: a new process's view of the helper.
    func readInNewProcess(_ keys: String...) async throws -> [String: String] {
        let output = try await run(
            storeExecutable,
            ["sharing-read", Self.group, Self.bundle, world.team.teamIdentifier.rawValue] + keys,
            environment: world.processVariables
        )
        #expect(output.status == 0, "\(output.standardError)")
        var lines: [String: String] = [:]
        for line in output.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { lines[String(parts[0])] = String(parts[1]) }
        }
        return lines
    }

    @Test(
        "setting appGroupName, then appGroupEnabled, moves every own key into the group without loss, and a new process reads the settings and the keys; turning it off copies them back, and a new process reads that too"
    )
    func settingMigratesAndPersists() async throws {
        let helper = try DataSharingHelper(context: context(), environment: world.environment)
        let own = try DataSharing(context: context(), environment: world.environment).standard
        try own.set("ada", forKey: "user")
        try own.set(3, forKey: "launches")
        let host = try SharedDefaults(
            group: AppGroup(Self.group, context: context("com.salesforce.other"), environment: world.environment)
        )
        try host.set("dark", forKey: "theme")

        helper.appGroupName = Self.group
        #expect(helper.lastRefusal == nil)
        #expect(helper.appGroupName == Self.group && !helper.appGroupEnabled)
        #expect(own.string(forKey: "user") == "ada", "naming the group moved a key before sharing was on")
        #expect(host.object(forKey: "user") == nil)

        helper.appGroupEnabled = true
        #expect(helper.lastRefusal == nil)
        #expect(helper.appGroupName == Self.group && helper.appGroupEnabled)
        #expect(host.string(forKey: "user") == "ada" && host.integer(forKey: "launches") == 3)
        #expect(own.dictionaryRepresentation().isEmpty)
        var read = try await readInNewProcess("user", "launches", "theme")
        #expect(read["name"] == Self.group && read["enabled"] == "true" && read["suite"] == Self.group)
        #expect(read["user"] == "ada" && read["launches"] == "3" && read["theme"] == "dark")

        helper.appGroupEnabled = false
        #expect(helper.lastRefusal == nil)
        #expect(helper.appGroupName == Self.group && !helper.appGroupEnabled)
        #expect(own.string(forKey: "user") == "ada" && own.string(forKey: "theme") == "dark")
        read = try await readInNewProcess("user", "launches", "theme")
        #expect(read["name"] == Self.group && read["enabled"] == "false" && read["suite"] == "own")
        #expect(read["user"] == "ada" && read["launches"] == "3" && read["theme"] == "dark")
    }

    @Test(
        "a group the process is not entitled to is refused, naming the group and the process, and changes nothing: not the settings, not a key"
    )
    func refusedGroupChangesNothing() throws {
        let helper = try DataSharingHelper(context: context(), environment: world.environment)
        let own = try DataSharing(context: context(), environment: world.environment).standard
        try own.set("ada", forKey: "user")
        try helper.setAppGroup(Self.group, enabled: true)
        let group = try SharedDefaults(group: AppGroup(Self.group, context: context(), environment: world.environment))
        #expect(group.string(forKey: "user") == "ada")
        let stranger = "group.com.example.stranger"

        func expectUnchanged(_ what: String) {
            #expect(helper.appGroupName == Self.group && helper.appGroupEnabled, "\(what)")
            #expect(group.string(forKey: "user") == "ada" && own.dictionaryRepresentation().isEmpty, "\(what)")
            #expect(!FileManager.default.fileExists(atPath: world.environment.home + "/AppGroups/" + stranger))
        }
        func expectNamesBoth(_ error: AppexError?, _ what: String) {
            #expect(error?.code == .missingEntitlement, "\(what)")
            #expect(
                error?.message.contains(stranger) == true && error?.message.contains(Self.bundle) == true,
                "\(what)"
            )
            #expect(error?.context.group == stranger && error?.context.bundleIdentifier == Self.bundle, "\(what)")
        }

        helper.appGroupName = stranger
        expectNamesBoth(helper.lastRefusal, "the setter")
        expectUnchanged("the setter")
        for enabled in [true, false] {
            let error = try #require(throws: AppexError.self) { try helper.setAppGroup(stranger, enabled: enabled) }
            expectNamesBoth(error, "setAppGroup(enabled: \(enabled))")
            expectNamesBoth(helper.lastRefusal, "setAppGroup(enabled: \(enabled))")
            expectUnchanged("setAppGroup(enabled: \(enabled))")
        }
        // Sharing turned on with no group named: refused, nothing moves.
        try helper.setAppGroup(nil, enabled: false)
        #expect(helper.appGroupName == nil && !helper.appGroupEnabled && own.string(forKey: "user") == "ada")
        helper.appGroupEnabled = true
        #expect(helper.lastRefusal?.code == .invalidName)
        #expect(!helper.appGroupEnabled && own.string(forKey: "user") == "ada")
        // A set that succeeds clears the refusal.
        helper.appGroupName = Self.group
        #expect(helper.lastRefusal == nil)
    }

    @Test(
        "the defaults are the process's own suite while sharing is off and the group's once it is on, following each switch"
    )
    func defaultsFollowTheSettings() throws {
        let helper = try DataSharingHelper(context: context(), environment: world.environment)
        let own = try DataSharing(context: context(), environment: world.environment).standard
        let defaults = helper.defaults
        #expect(try defaults.suite().group == nil)
        #expect(try defaults.suite().path == own.path)
        defaults.set(true, forKey: "userLoggedIn")
        #expect(defaults.lastError == nil && own.bool(forKey: "userLoggedIn"))

        helper.appGroupName = Self.group
        helper.appGroupEnabled = true
        let group = try SharedDefaults(
            group: AppGroup(Self.group, context: context("com.salesforce.other"), environment: world.environment)
        )
        #expect(try defaults.suite().group?.identifier == Self.group)
        #expect(try defaults.suite().path == group.path)
        defaults.set("grace", forKey: "user")
        #expect(defaults.lastError == nil)
        #expect(group.string(forKey: "user") == "grace" && group.bool(forKey: "userLoggedIn"))
        #expect(own.object(forKey: "user") == nil)
        #expect(defaults.bool(forKey: "userLoggedIn") && defaults.string(forKey: "user") == "grace")

        helper.appGroupEnabled = false
        #expect(try defaults.suite().group == nil)
        defaults.set("linus", forKey: "user")
        #expect(own.string(forKey: "user") == "linus" && group.string(forKey: "user") == "grace")
    }

    @Test("settings changed from many threads at once apply one after the other: every key written meanwhile is kept")
    func concurrentSettings() async throws {
        let helper = try DataSharingHelper(context: context(), environment: world.environment)
        helper.appGroupName = Self.group
        await withTaskGroup(of: Void.self) { tasks in
            for worker in 0..<4 {
                tasks.addTask {
                    for round in 0..<5 {
                        helper.appGroupEnabled = (worker + round) % 2 == 0
                        helper.defaults.set(round, forKey: "w\(worker)-\(round)")
                    }
                }
            }
        }
        for worker in 0..<4 {
            for round in 0..<5 {
                #expect(helper.defaults.integer(forKey: "w\(worker)-\(round)") == round, "w\(worker)-\(round)")
            }
        }
        #expect(helper.appGroupName == Self.group)
    }
}
