import AppexCore
import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// Configurable widgets (Tests/Fixtures/AppexFixtureConfiguredWidget): an `AppIntentConfiguration`
/// whose `WidgetConfigurationIntent` has text, a number, a switch, an `AppEnum` and values from a
/// `DynamicOptionsProvider`, with presets; and a SiriKit `IntentConfiguration` configured by its
/// presets. The widget host keeps each placed widget's configuration and the provider gets it.
@Suite(.timed) struct WidgetConfigurationTests {
    static let executable = URL(fileURLWithPath: appexExecutable).deletingLastPathComponent()
        .appendingPathComponent("AppexFixtureConfiguredWidget").path

    /// A world whose app has the configured widgets only.
    static func world() throws -> WidgetWorld {
        let widgets = try WidgetWorld()
        try FileManager.default.removeItem(atPath: widgets.app + "/Extensions/FixtureWidgets.appex")
        try FixtureBundles.bundle(
            executable: executable,
            in: widgets.app + "/Extensions",
            name: "Configured",
            bundleIdentifier: WidgetWorld.appIdentifier + ".configured",
            signedBy: widgets.world.team
        )
        return widgets
    }

    @Test(
        "a configurable widget describes its intent's parameters (kinds, titles, defaults, an AppEnum's cases, an options provider's values) and presets, and draws its defaults"
    )
    func describesParameters() async throws {
        let widgets = try Self.world()
        let host = try widgets.host()
        let emoji = try #require(try await host.refresh().widget("Emoji"))
        #expect(emoji.descriptor.isConfigurable)
        let parameters = Dictionary(uniqueKeysWithValues: emoji.descriptor.parameters.map { ($0.name, $0) })
        #expect(emoji.descriptor.parameters.map(\.name) == ["favoriteEmoji", "count", "shout", "mood", "color"])
        #expect(parameters["favoriteEmoji"]?.kind == .text)
        #expect(parameters["favoriteEmoji"]?.title == "Favorite Emoji")
        #expect(parameters["favoriteEmoji"]?.defaultValue == "\"😃\"")
        #expect(parameters["count"]?.kind == .integer)
        #expect(parameters["shout"]?.kind == .boolean)
        #expect(parameters["mood"]?.kind == .choice)
        #expect(parameters["mood"]?.options.map(\.title) == ["Happy", "Sleepy"])
        #expect(parameters["color"]?.options.map(\.title) == ["Red", "Green", "Blue"])
        #expect(parameters["color"]?.isOptional == true)
        #expect(emoji.descriptor.recommendations.map(\.description) == ["Party"])
        #expect(emoji.texts() == ["😃", "mood happy", "color none"])
        let hero = try #require(try host.states().widget("Hero"))
        #expect(hero.descriptor.isConfigurable && hero.descriptor.parameters.isEmpty)
        #expect(hero.descriptor.recommendations.map(\.description) == ["Spouty", "Egghead"])
        #expect(hero.texts() == ["hero Nobody", ""], "the name, and the countdown")
    }

    @Test(
        "a widget whose required parameter has no default and was never set is stale with the parameter named and how to set it (its extension does not crash); set, it draws"
    )
    func requiredParameterUnset() async throws {
        let widgets = try Self.world()
        let host = try widgets.host()
        let greeting = try #require(try await host.refresh().widget("Greeting"))
        guard case .stale(let code, let reason, _) = greeting.health else {
            Issue.record("\(greeting.health)")
            return
        }
        #expect(code == "remote-failure" && reason.contains("invalid-value"), "\(reason)")
        #expect(reason.contains("widget Greeting"), "\(reason)")
        #expect(reason.contains("parameter name (Name) has no value and no default"), "\(reason)")
        #expect(reason.contains("appex widgets configure KIND --set name=VALUE"), "\(reason)")
        try host.configure(greeting, setting: ["name": "Ada"])
        #expect(try await host.refresh().widget("Greeting")?.texts() == ["Hello Ada"])
    }

    @Test(
        "configuring a widget takes nothing from its reload budget, as in WidgetKit: with a budget of one, spent on its first display, each change is still drawn"
    )
    func configuringIsFree() async throws {
        let widgets = try Self.world()
        let host = try widgets.host(budget: 1)
        let emoji = try #require(try await host.refresh().widget("Emoji"))
        #expect(emoji.budgetUsed == 1)
        for face in ["🤩", "🐳", "🦊"] {
            try host.configure(emoji, setting: ["favoriteEmoji": face])
            let shown = try #require(try await host.refresh().widget("Emoji"))
            #expect(shown.texts().first == face, "\(shown.health)")
            #expect(shown.budgetUsed == 1)
        }
        // An app's reload request still takes from it: none is left, so it is refused.
        #expect(try await widgets.appRequestsReload("Emoji").status == 0)
        let refused = try #require(try await host.refresh().widget("Emoji"))
        guard case .budgetExhausted = refused.health else {
            Issue.record("\(refused.health)")
            return
        }
        #expect(refused.texts().first == "🦊")
    }

    @Test(
        "a widget host state written before reloads were marked by person (schema 2) opens as schema 3 with every table and row kept"
    )
    func storeUpgradesFromVersion2() async throws {
        let widgets = try Self.world()
        let host = try widgets.host()
        let emoji = try #require(try await host.refresh().widget("Emoji"))
        try host.configure(emoji, setting: ["favoriteEmoji": "🐳"])
        _ = try await host.refresh()
        // Back to schema 2: the reload table as it was, the version with it.
        let file = widgets.environment.home + "/Widgets/widgets.sqlite"
        let downgrade = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.executescript("CREATE TABLE reload2 (name TEXT PRIMARY KEY, kind TEXT, app TEXT, requestedAt REAL NOT NULL);"
                             "INSERT INTO reload2 SELECT name, kind, app, requestedAt FROM reload;"
                             "DROP TABLE reload; ALTER TABLE reload2 RENAME TO reload; PRAGMA user_version = 2;")
            db.commit()
            """
        let done = try await run("/usr/bin/python3", ["-c", downgrade, file], environment: [:])
        try #require(done.status == 0, "\(done.standardError)")
        let again = try widgets.host()
        let kept = try #require(try again.states().widget("Emoji"))
        #expect(kept.texts().first == "🐳")
        #expect(try again.configuration(of: kept.key) == ["favoriteEmoji": "\"🐳\""])
        try again.configure(kept, setting: ["favoriteEmoji": "🦊"])
        #expect(try await again.refresh().widget("Emoji")?.texts().first == "🦊")
    }

    @Test(
        "the same widgets compiled in Swift 5 mode (as real widget projects build) describe the same kinds and draw the same entries"
    )
    func swift5ModeBuild() async throws {
        let widgets = try WidgetWorld()
        try FileManager.default.removeItem(atPath: widgets.app + "/Extensions/FixtureWidgets.appex")
        try FixtureBundles.bundle(
            executable: Self.executable + "Swift5",
            in: widgets.app + "/Extensions",
            name: "Configured",
            bundleIdentifier: WidgetWorld.appIdentifier + ".configured",
            signedBy: widgets.world.team
        )
        let states = try await widgets.host().refresh()
        let original = try Self.world()
        let swift6 = try await original.host().refresh()
        #expect(states.map(\.key.kind).sorted() == swift6.map(\.key.kind).sorted())
        #expect(states.map(\.key.kind).sorted() == ["Bell", "Emoji", "Greeting", "Headline", "Hero", "Lamp", "Ranger"])
        for state in states { #expect(state.texts() == swift6.widget(state.key.kind)?.texts(), "\(state.key.kind)") }
    }

    @Test(
        "configuring a placed widget sets its parameters as a person types them; its provider gets them in timeline(for:in:), and they survive a new widget host"
    )
    func configureSetsParameters() async throws {
        let widgets = try Self.world()
        let host = try widgets.host()
        let emoji = try #require(try await host.refresh().widget("Emoji"))
        let set = try host.configure(
            emoji,
            setting: ["favoriteEmoji": "🤩", "count": "2", "shout": "yes", "mood": "Sleepy", "color": "Blue"]
        )
        #expect(
            set == ["favoriteEmoji": "\"🤩\"", "count": "2", "shout": "true", "mood": "\"sleepy\"", "color": "\"Blue\""]
        )
        let again = try widgets.host()
        let shown = try #require(try await again.refresh().widget("Emoji"))
        #expect(shown.texts() == ["🤩🤩!", "mood sleepy", "color Blue"])
        #expect(try again.configuration(of: shown.key) == set)
        // One parameter changed: the others stay as set.
        try again.configure(shown, setting: ["count": "1"])
        #expect(try await again.refresh().widget("Emoji")?.texts() == ["🤩!", "mood sleepy", "color Blue"])
        // Back to the defaults.
        try again.configure(shown, reset: true)
        #expect(try await again.refresh().widget("Emoji")?.texts() == ["😃", "mood happy", "color none"])
        #expect(try again.configuration(of: shown.key).isEmpty)
    }

    @Test(
        "a wrong parameter name, a value of the wrong kind, one outside its options, and a static widget are refused with what the widget takes; nothing changes"
    )
    func badValuesChangeNothing() async throws {
        let widgets = try Self.world()
        let host = try widgets.host()
        let emoji = try #require(try await host.refresh().widget("Emoji"))
        try host.configure(emoji, setting: ["favoriteEmoji": "🐳"])
        let before = try host.configuration(of: emoji.key)
        let attempts: [([String: String], AppexError.Code, String)] = [
            (
                ["colour": "Red"], .invalidValue,
                "has no parameter colour (its parameters: favoriteEmoji, count, shout, mood, color)"
            ),
            (["count": "two"], .invalidValue, "count (Count) takes a whole number, not \"two\""),
            (["shout": "maybe"], .invalidValue, "shout (Shout) takes yes or no"),
            (["mood": "angry"], .invalidValue, "mood (Mood) takes one of \"Happy\", \"Sleepy\", not \"angry\""),
            (
                ["count": "3", "color": "Pink"], .invalidValue,
                "color (Color) takes one of \"Red\", \"Green\", \"Blue\""
            ),
        ]
        for (values, code, words) in attempts {
            let error = #expect(throws: AppexError.self) { try host.configure(emoji, setting: values) }
            #expect(error?.code == code, "\(values)")
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
        let preset = #expect(throws: AppexError.self) { try host.configure(emoji, preset: "Disco") }
        #expect(preset?.code == .notFound)
        #expect(preset?.message.contains("has no preset \"Disco\" (its presets: \"Party\")") == true)
        #expect(try host.configuration(of: emoji.key) == before)
        #expect(try await host.refresh().widget("Emoji")?.texts().first == "🐳")
    }

    @Test(
        "presets: an App Intents widget takes its recommendation's parameters; a SiriKit intent widget is configured by picking one of its recommendations"
    )
    func presets() async throws {
        let widgets = try Self.world()
        let host = try widgets.host()
        let states = try await host.refresh()
        let emoji = try #require(states.widget("Emoji"))
        try host.configure(emoji, preset: "Party")
        let hero = try #require(states.widget("Hero"))
        try host.configure(hero, preset: "Egghead")
        let after = try await host.refresh()
        #expect(after.widget("Emoji")?.texts() == ["🎉🎉🎉", "mood happy", "color none"])
        #expect(after.widget("Hero")?.texts() == ["hero Egghead", ""])
        // A build that lists its recommendations in another order keeps the person's pick.
        let container = widgets.environment.home + "/Containers/" + WidgetWorld.appIdentifier + ".configured"
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
        try "reversed".write(toFile: container + "/hero-order", atomically: true, encoding: .utf8)
        let drawnBefore = try #require(after.widget("Hero")?.fetchedAt)
        #expect(try await widgets.appRequestsReload("Hero").status == 0)
        let reordered = try #require(try await host.refresh().widget("Hero"))
        #expect(try #require(reordered.fetchedAt) > drawnBefore, "a new timeline, from the reordered build")
        #expect(reordered.texts() == ["hero Egghead", ""])
        let named = #expect(throws: AppexError.self) { try host.configure(hero, setting: ["hero": "Octo"]) }
        #expect(named?.message.contains("has no parameter hero (its parameters: none; pick a preset)") == true)
    }

    @Test(
        "`appex widgets configure KIND` lists what can be set; `--set name=value` configures the widget `appex widgets show` then draws; a bad value exits 1 and says why"
    )
    func configureCommand() async throws {
        let widgets = try Self.world()
        let listed = try await run(
            appexExecutable,
            ["widgets", "configure", "Emoji"],
            environment: widgets.processVariables
        )
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(
            listed.standardOutput.contains("favoriteEmoji: Favorite Emoji, text, default 😃"),
            "\(listed.standardOutput)"
        )
        #expect(
            listed.standardOutput.contains("mood: Mood, choice, default Happy; one of: Happy, Sleepy"),
            "values as a person types them for --set: \(listed.standardOutput)"
        )
        #expect(listed.standardOutput.contains("presets: \"Party\""))
        let set = try await run(
            appexExecutable,
            ["widgets", "configure", "Emoji", "--set", "favoriteEmoji=🤩", "--set", "count=2"],
            environment: widgets.processVariables
        )
        #expect(set.status == 0, "\(set.standardError)")
        #expect(
            set.standardOutput.contains("configured Emoji (systemSmall): count=2 favoriteEmoji=🤩"),
            "\(set.standardOutput)"
        )
        let shown = try await run(appexExecutable, ["widgets", "show", "Emoji"], environment: widgets.processVariables)
        #expect(shown.standardOutput.contains("🤩🤩"), "\(shown.standardOutput)")
        let bad = try await run(
            appexExecutable,
            ["widgets", "configure", "Emoji", "--set", "count=many"],
            environment: widgets.processVariables
        )
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("count (Count) takes a whole number, not \"many\""), "\(bad.standardError)")
    }
}
