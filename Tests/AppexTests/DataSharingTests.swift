import AppexCore
import AppexStore
import AppexTestTiers
import AppexTesting
import Foundation
import Testing

/// The data-sharing helper: a process's defaults in its own suite or its app group's, moved
/// between the two without losing a key.
@Suite(.timed) struct DataSharingTests {
    let world: AppexTestEnvironment
    init() throws { world = try AppexTestEnvironment() }

    static let group = "group.com.example.app"

    func context(_ id: String, groups: [String] = [Self.group]) -> ProcessContext {
        ProcessContext(
            bundleIdentifier: id,
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: groups, keychainAccessGroups: [])
        )
    }

    @Test("off by default: standardOrGroup is the process's own suite, in its own container")
    func ownSuiteByDefault() throws {
        let sharing = try DataSharing(context: context("com.example.hostapp.widget"), environment: world.environment)
        #expect(!sharing.appGroupEnabled)
        #expect(sharing.appGroupName == nil)
        let defaults = try SharedDefaults.standardOrGroup(
            context: context("com.example.hostapp.widget"),
            environment: world.environment
        )
        #expect(defaults.group == nil)
        #expect(
            defaults.path == world.environment.home
                + "/Containers/com.example.hostapp.widget/Library/Preferences/com.example.hostapp.widget.sqlite"
        )
    }

    @Test(
        "turning on moves every own key into the group (own value wins), records it, and standardOrGroup follows; off copies the group back"
    )
    func onAndOff() throws {
        let widget = context("com.example.hostapp.widget")
        let sharing = try DataSharing(context: widget, environment: world.environment)
        let own = sharing.standard
        try own.set("ada", forKey: "user")
        try own.set(3, forKey: "launches")
        try own.set(.dictionary(["a": .integer(1)]), forKey: "nested")
        let hostSide = try SharedDefaults(
            group: AppGroup(Self.group, context: context("com.example.hostapp"), environment: world.environment)
        )
        try hostSide.set("host", forKey: "theme")
        try hostSide.set(99, forKey: "launches")

        try sharing.enableAppGroup(Self.group)
        #expect(sharing.appGroupEnabled && sharing.appGroupName == Self.group)
        #expect(hostSide.string(forKey: "user") == "ada")
        #expect(hostSide.integer(forKey: "launches") == 3)
        #expect(hostSide.dictionary(forKey: "nested") == ["a": .integer(1)])
        #expect(hostSide.string(forKey: "theme") == "host")
        #expect(own.dictionaryRepresentation().isEmpty)
        let shared = try SharedDefaults.standardOrGroup(context: widget, environment: world.environment)
        #expect(shared.group?.identifier == Self.group)
        try sharing.enableAppGroup(Self.group)  // again: nothing moves
        #expect(own.dictionaryRepresentation().isEmpty)

        try shared.set("grace", forKey: "user")
        try sharing.disableAppGroup()
        #expect(!sharing.appGroupEnabled && sharing.appGroupName == Self.group)
        #expect(
            own.dictionaryRepresentation() == [
                "user": .string("grace"), "launches": .integer(3), "nested": .dictionary(["a": .integer(1)]),
                "theme": .string("host"),
            ]
        )
        #expect(hostSide.string(forKey: "user") == "grace")  // the group keeps its keys
        #expect(try SharedDefaults.standardOrGroup(context: widget, environment: world.environment).group == nil)
    }

    @Test(
        "an extension turning sharing on never overwrites what the group holds: its stale own userLoggedIn leaves the host's published status, its other keys are copied"
    )
    func extensionDefersToTheGroup() throws {
        let widget = ProcessContext(
            bundleIdentifier: "com.example.hostapp.widget",
            team: world.team.teamIdentifier,
            entitlements: Entitlements(applicationGroups: [Self.group], keychainAccessGroups: []),
            kind: .appExtension
        )
        let sharing = try DataSharing(context: widget, environment: world.environment)
        try sharing.standard.set(false, forKey: "userLoggedIn")  // from before the host shared anything
        try sharing.standard.set("compact", forKey: "layout")
        let host = try DataSharing(context: context("com.example.hostapp"), environment: world.environment)
        try host.standard.set(true, forKey: "userLoggedIn")
        try host.enableAppGroup(Self.group)
        try sharing.enableAppGroup(Self.group)
        let group = try SharedDefaults.standardOrGroup(context: widget, environment: world.environment)
        #expect(group.group?.identifier == Self.group)
        #expect(group.bool(forKey: "userLoggedIn") == true)
        #expect(group.string(forKey: "layout") == "compact")
        #expect(sharing.standard.dictionaryRepresentation().isEmpty)
    }

    @Test(
        "switching on again copies only what the process wrote while off: a newer group value is not overwritten by an old copy"
    )
    func onAgainCopiesOnlyNewWrites() throws {
        let sharing = try DataSharing(context: context("com.example.hostapp.widget"), environment: world.environment)
        try sharing.standard.set("one", forKey: "theme")
        try sharing.enableAppGroup(Self.group)
        try sharing.disableAppGroup()  // the own suite now holds theme = one
        let hostSide = try SharedDefaults(
            group: AppGroup(Self.group, context: context("com.example.hostapp"), environment: world.environment)
        )
        try hostSide.set("two", forKey: "theme")  // newer, by the host, while the widget is off
        try sharing.standard.set(7, forKey: "written-while-off")
        try sharing.standard.removeObject(forKey: "never-there")
        try sharing.enableAppGroup(Self.group)
        #expect(hostSide.string(forKey: "theme") == "two")
        #expect(hostSide.integer(forKey: "written-while-off") == 7)
    }

    @Test(
        "switching one -> off -> two -> off -> one copies only the process's own writes: a newer value in one survives, no key is deleted there"
    )
    func betweenTwoGroups() throws {
        let second = "group.com.example.second"
        let widget = context("com.example.hostapp.widget", groups: [Self.group, second])
        let sharing = try DataSharing(context: widget, environment: world.environment)
        try sharing.standard.set(1, forKey: "k")
        try sharing.standard.set("x", forKey: "only-in-one")
        try sharing.enableAppGroup(Self.group)
        try sharing.disableAppGroup()
        try sharing.enableAppGroup(second)
        let secondSuite = try SharedDefaults(group: AppGroup(second, context: widget, environment: world.environment))
        try secondSuite.removeObject(forKey: "only-in-one")  // removed in two by someone else
        try sharing.disableAppGroup()
        let one = try SharedDefaults(
            group: AppGroup(Self.group, context: context("com.example.hostapp"), environment: world.environment)
        )
        try one.set(2, forKey: "k")  // newer, by the host
        try sharing.enableAppGroup(Self.group)
        #expect(one.integer(forKey: "k") == 2)
        #expect(one.string(forKey: "only-in-one") == "x")
    }

    @Test("the own suite refuses writes while sharing is on (conflict), so none lands where nobody reads it")
    func ownSuiteRefusesWritesWhenShared() throws {
        let sharing = try DataSharing(context: context("com.example.hostapp.widget"), environment: world.environment)
        let own = sharing.standard
        try sharing.enableAppGroup(Self.group)
        let error = try #require(throws: AppexError.self) { try own.set(1, forKey: "late") }
        #expect(error.code == .conflict && error.message.contains(Self.group))
        try sharing.disableAppGroup()
        try own.set(1, forKey: "late")
    }

    @Test("two processes of one bundle turning sharing off at once never undo a write made after the first switch")
    func concurrentDisables() async throws {
        for trial in 0..<10 {
            let bundle = "com.example.race\(trial)"
            let sharing = try DataSharing(context: context(bundle), environment: world.environment)
            try sharing.standard.set("old", forKey: "k")
            try sharing.enableAppGroup(Self.group)
            let first = try DataSharing(context: context(bundle), environment: world.environment)
            let second = try DataSharing(context: context(bundle), environment: world.environment)
            let writer = try DataSharing(context: context(bundle), environment: world.environment)
            // The switch that wins copies the group's "k" back into the own suite in the
            // transaction that turns sharing off: the own suite's change stream announces it.
            let switchedOff = writer.standard.changes(forKey: "k")
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try first.disableAppGroup() }
                tasks.addTask { try second.disableAppGroup() }
                tasks.addTask {
                    // As soon as sharing is off, write: that write must survive the other switch.
                    _ = await firstElement(of: switchedOff, "trial \(trial): the switch off copying k back")
                    #expect(!writer.appGroupEnabled, "trial \(trial)")
                    try writer.defaults().set("mine", forKey: "k")
                }
                try await tasks.waitForAll()
            }
            #expect(try sharing.defaults().string(forKey: "k") == "mine", "trial \(trial)")
        }
    }

    @Test("two processes of one bundle turning sharing on to two groups at once: the one recorded holds every key")
    func concurrentEnables() async throws {
        let second = "group.com.example.second"
        for trial in 0..<10 {
            let widget = context("com.example.both\(trial)", groups: [Self.group, second])
            let sharing = try DataSharing(context: widget, environment: world.environment)
            for index in 0..<20 { try sharing.standard.set(index, forKey: "k\(index)") }
            let first = try DataSharing(context: widget, environment: world.environment)
            let other = try DataSharing(context: widget, environment: world.environment)
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { _ = try? first.enableAppGroup(Self.group) }  // one may be refused with conflict
                tasks.addTask { _ = try? other.enableAppGroup(second) }
            }
            let defaults = try sharing.defaults()
            for index in 0..<20 {
                #expect(defaults.integer(forKey: "k\(index)") == index, "trial \(trial): k\(index) in \(defaults.path)")
            }
        }
    }

    @Test(
        "a bundle of another team cannot open a bundle identifier's own container; the owner's container is no bundle's"
    )
    func ownContainerTeam() throws {
        let mine = try DataSharing(context: context("com.example.hostapp.widget"), environment: world.environment)
        try mine.standard.set("private", forKey: "k")
        let stranger = ProcessContext(
            bundleIdentifier: "com.example.hostapp.widget",
            team: TeamIdentifier(rawValue: "ZZZZZZZZZZ"),
            entitlements: Entitlements(applicationGroups: [], keychainAccessGroups: [])
        )
        let error = try #require(throws: AppexError.self) {
            try DataSharing(context: stranger, environment: world.environment)
        }
        #expect(error.code == .teamMismatch)
        let owner = try DataSharing(context: .owner, environment: world.environment)
        #expect(owner.standard.path.contains("/Containers/.owner/"))
    }

    @Test("a process without the group's entitlement cannot turn sharing on, and nothing changes")
    func unentitled() throws {
        let sharing = try DataSharing(context: context("com.example.other", groups: []), environment: world.environment)
        try sharing.standard.set(1, forKey: "kept")
        let error = try #require(throws: AppexError.self) { try sharing.enableAppGroup(Self.group) }
        #expect(error.code == .missingEntitlement)
        #expect(error.message.contains(Self.group) && error.message.contains(Entitlements.Key.applicationGroups))
        #expect(!sharing.appGroupEnabled && sharing.appGroupName == nil)
        #expect(sharing.standard.integer(forKey: "kept") == 1)
    }

    @Test(
        "a process killed with SIGKILL while switching on and off, again and again, loses no key and no committed write"
    )
    func killedWhileSwitching() async throws {
        let bundle = "com.example.hostapp.widget"
        // The keys are there before the first run (the fixture writes only missing ones), so
        // every round checks them, however early it was killed.
        let first = try DataSharing(context: context(bundle), environment: world.environment)
        for index in 0..<20 { try first.standard.set("v\(index)", forKey: "k\(index)") }
        let seed = TestSeed()
        var generator = seed.generator
        var counter = 0
        var printedAny = false
        for round in 0..<8 {
            let lifetime = Double.random(in: 0.2...0.6, using: &generator)
            let output = try await run(
                storeExecutable,
                ["sharing-loop", Self.group, bundle, world.team.teamIdentifier.rawValue],
                environment: world.processVariables,
                timeout: lifetime
            )
            let printed = printedNumbers(output)
            printedAny = printedAny || !printed.isEmpty
            // Whatever the state it was killed in, the process's defaults hold every key, and the
            // counter it reported last (or the one it committed but was killed before reporting).
            let sharing = try DataSharing(context: context(bundle), environment: world.environment)
            let defaults = try sharing.defaults()
            for index in 0..<20 {
                #expect(
                    defaults.string(forKey: "k\(index)") == "v\(index)",
                    "round \(round): k\(index) in \(defaults.path); \(seed)"
                )
            }
            let now = defaults.object(forKey: "counter") == nil ? nil : defaults.integer(forKey: "counter")
            counter = expectCountedOn(
                from: counter,
                printed: printed,
                storedAfter: now,
                "round \(round), \(defaults.path); \(seed)"
            )
        }
        #expect(printedAny, "the fixture never committed a write before being killed; \(seed)")
        // And it settles either way.
        let sharing = try DataSharing(context: context(bundle), environment: world.environment)
        let before = try sharing.defaults().dictionaryRepresentation()
        try sharing.enableAppGroup(Self.group)
        #expect(try sharing.defaults().dictionaryRepresentation() == before)
        try sharing.disableAppGroup()
        #expect(try sharing.defaults().dictionaryRepresentation() == before)
    }
}
