import AppexTestTiers
import AppexTesting
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Synchronization
import Testing

/// A widget configured with an `AppEntity` (Tests/Fixtures/AppexFixtureConfiguredWidget's
/// Ranger): the host keeps the entity's identifier and the widget's intent gets the entity back
/// from its `EntityQuery`; a `ParameterSummary` compiles; a result that `OpensIntent` performs
/// the intent it opens.
@Suite(.timed) struct WidgetEntityTests {
    @Test(
        "an AppEntity parameter is a choice of its query's suggestions starting at the query's default; set by a ranger's title it is kept by identifier and drawn; a ranger the query no longer finds leaves it empty"
    )
    func entityParameter() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let host = try widgets.host()
        let ranger = try #require(try await host.refresh().widget("Ranger"))
        let parameter = try #require(ranger.descriptor.parameters.first { $0.name == "ranger" })
        #expect(parameter.kind == .choice && parameter.isOptional)
        #expect(parameter.options.map(\.title) == ["Spouty", "Egghead", "Cake"])
        #expect(parameter.options.map(\.value) == ["\"spouty\"", "\"egghead\"", "\"cake\""])
        #expect(parameter.defaultValue == "\"spouty\"")
        #expect(ranger.texts().first == "Spouty", "the query's default, with nothing configured")

        try host.configure(ranger, setting: ["ranger": "Cake"])
        #expect(try host.configuration(of: ranger.key)["ranger"] == "\"cake\"")
        #expect(try await host.refresh().widget("Ranger")?.texts().first == "Cake")

        // Cake retires: the kept identifier finds nothing, and the widget says so rather than fail.
        let container = widgets.environment.home + "/Containers/" + WidgetWorld.appIdentifier + ".configured"
        try "cake".write(toFile: container + "/retired", atomically: true, encoding: .utf8)
        try host.configure(ranger, setting: ["showsAll": "yes"])
        let retired = try #require(try await host.refresh().widget("Ranger"))
        #expect(retired.texts().first == "no ranger", "\(retired.health)")
        #expect(throws: AppexError.self) { try host.configure(ranger, setting: ["ranger": "Nobody"]) }
    }

    @Test("a tap whose intent's result opens another intent performs both, in order, with one new timeline")
    func opensIntent() async throws {
        let widgets = try WidgetConfigurationTests.world()
        let host = try widgets.host()
        let ranger = try #require(try await host.refresh().widget("Ranger"))
        try await host.performIntent(0, of: ranger)
        let container = widgets.environment.home + "/Containers/" + WidgetWorld.appIdentifier + ".configured"
        #expect(try String(contentsOfFile: container + "/ranger-log", encoding: .utf8) == "healed\nlogged\n")
    }

    /// Opens itself again, counting each time it is performed.
    struct EchoingIntent: AppIntent {
        static let title: LocalizedStringResource = "Echo"
        static let performed = Mutex(0)
        func perform() async throws -> some IntentResult & OpensIntent {
            Self.performed.withLock { $0 += 1 }
            return .result(opensIntent: EchoingIntent())
        }
    }

    @Test(
        "an intent that keeps opening intents is cut after 8, with an error naming the first and the one not performed"
    )
    func openedIntentsAreBounded() async throws {
        let control = try #require(ViewTree(Button(intent: EchoingIntent()) { Text("Echo") }).controls.first)
        let error = await #expect(throws: AppexError.self) { try await control.perform() }
        #expect(error?.code == .intentFailed)
        #expect(
            error?.message.contains("intent Echo opened 8 intents in a row; Echo was not performed") == true,
            "\(String(describing: error))"
        )
        #expect(EchoingIntent.performed.withLock { $0 } == 8)
    }

    struct ShowIntent: AppIntent {
        static let title: LocalizedStringResource = "Show"
        @Parameter(title: "Name") var name: String?
        @Parameter(title: "Loud", default: false) var loud: Bool
        static var parameterSummary: some ParameterSummary {
            When(widgetFamily: .equalTo, .systemSmall) {
                Summary("Show \(\.$name)")
            } otherwise: {
                Summary("Show \(\.$name) loudly") {
                    \.$loud
                    \.$name
                }
            }
        }
        func perform() async throws -> some IntentResult { .result() }
    }

    @Test("a ParameterSummary reads its parameters by name; an intent without one has none")
    func parameterSummary() {
        #expect(Summary<ShowIntent>("Show \(\.$name) now").text == "Show ${name} now")
        // Both builders run: the When's two summaries, the table of key paths.
        _ = ShowIntent.parameterSummary
        _ = NoSummaryIntent.parameterSummary
    }

    struct NoSummaryIntent: AppIntent {
        static let title: LocalizedStringResource = "Plain"
        func perform() async throws -> some IntentResult { .result() }
    }

    @Test(
        "EdgeInsets pads each edge; \\.openURL calls the handler set in the environment, and the default opens nothing"
    )
    func edgeInsetsAndOpenURL() {
        let padded = Text("Hi").padding(EdgeInsets(top: 1, leading: 2, bottom: 3, trailing: 4))
        let frame = WidgetFrame(kind: "k", displayName: "K", family: .systemSmall, tree: ViewTree(padded), now: Date())
        #expect(HTMLRenderer().fragment(frame).contains("padding:1px 4px 3px 2px"))
        let opened = Mutex<[URL]>([])
        var environment = EnvironmentValues()
        environment.openURL(URL(string: "https://example.com")!)  // the default: nothing opens
        environment.openURL = OpenURLAction { url in
            opened.withLock { $0.append(url) }
            return .handled
        }
        environment.openURL(URL(string: "appex://ranger/cake")!)
        #expect(opened.withLock { $0 } == [URL(string: "appex://ranger/cake")!])
    }

    final class Loader: NSObject {}

    @Test(
        "Darwin's names that Apple's sample code uses are there, meaning what they mean there: a serial queue by either name, NSEC_PER_MSEC, a class's classForCoder()"
    )
    func darwinNames() async {
        let queue = OS_dispatch_queue_serial(label: "loader")
        let order = Mutex<[Int]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.asyncAfter(
                deadline: DispatchTime(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + 200 * NSEC_PER_MSEC)
            ) {
                order.withLock { $0.append(1) }
                queue.async { done.resume() }
            }
            DispatchSerialQueue(label: "other").sync { order.withLock { $0.append(0) } }
        }
        #expect(order.withLock { $0 } == [0, 1], "the other queue ran at once, the delayed block 200 ms later")
        #expect(NSEC_PER_MSEC == 1_000_000)
        #expect(Loader.classForCoder() == Loader.self)
    }
}
