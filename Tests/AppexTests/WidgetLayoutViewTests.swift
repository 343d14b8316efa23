import AppexTestTiers
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// The views widgets written for Apple platforms use to lay themselves out: `GeometryReader`,
/// `ViewThatFits`, `Path`, `ProgressView` with labels, `@AppStorage`, each drawn by both
/// renderers.
@Suite(.timed) struct WidgetLayoutViewTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    func frame(_ view: some View, _ family: WidgetFamily = .systemSmall) -> WidgetFrame {
        WidgetFrame(
            kind: "k",
            displayName: "Test",
            family: family,
            tree: ViewTree(view, family: family),
            now: Self.now
        )
    }

    @Test(
        "GeometryReader gives its content the widget's size, or the size of the fixed frame around it; both renderers draw what it made"
    )
    func geometryReader() {
        let view = VStack {
            GeometryReader { geometry in Text("\(Int(geometry.size.width))x\(Int(geometry.size.height))") }
            GeometryReader { geometry in
                Text("\(Int(geometry.frame(in: .local).width))x\(Int(geometry.frame(in: .local).maxY))")
            }
            .frame(height: 10)
        }
        #expect(ViewTree(view, family: .systemMedium).texts == ["364x170", "364x10"])
        let small = frame(view)
        #expect(TerminalRenderer(width: 30).render(small).contains("170x170"))
        #expect(HTMLRenderer().fragment(small).contains("170x10"))
    }

    @Test(
        "ViewThatFits draws the first of its views that fits the widget's width: an inline accessory's long sentence gives way to a shorter one, and the last is drawn when none fits"
    )
    func viewThatFits() {
        let choices = ViewThatFits {
            Text("Spouty is healing, ready in a little while, after a long rest")
            Text("Spouty ready soon")
            Text("🐳")
        }
        #expect(ViewTree(choices, family: .accessoryInline).texts == ["Spouty ready soon"])
        #expect(ViewTree(choices, family: .systemExtraLarge).texts.first?.hasPrefix("Spouty is healing") == true)
        let none = ViewThatFits { Text(String(repeating: "long ", count: 40)).font(.largeTitle) }
        #expect(ViewTree(none, family: .accessoryInline).texts.count == 1)
        #expect(TerminalRenderer().render(frame(choices, .accessoryInline)).contains("Spouty ready soon"))
    }

    @Test(
        "a Path is drawn as its bounding box at its place: four health bars in a GeometryReader, each its width and colour, left to right, in the HTML"
    )
    func pathBars() {
        let bars = GeometryReader { geometry in
            let width = geometry.size.width / 4
            ForEach(0..<4) { index in
                Path { path in
                    path.move(to: CGPoint(x: Double(index) * width, y: 0))
                    path.addLines([
                        CGPoint(x: Double(index) * width + width - 2, y: 0),
                        CGPoint(x: Double(index) * width + width - 2, y: geometry.size.height),
                    ])
                }
                .fill(index < 3 ? Color.green : Color.gray)
            }
        }
        .frame(width: 160, height: 10)
        let html = HTMLRenderer().fragment(frame(bars))
        for left in ["0px", "40px", "80px", "120px"].map({ "padding:0px 0px 0px \($0)" }) {
            #expect(html.contains(left), "\(html)")
        }
        #expect(html.contains("width:38px"), "\(html)")
        var empty = Path()
        #expect(empty.isEmpty && empty.boundingRect.isNull)
        empty.addRect(CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(empty.boundingRect == CGRect(x: 1, y: 2, width: 3, height: 4))
    }

    @Test(
        "ProgressView(timerInterval:countsDown:label:currentValueLabel:) draws its label, the running timer (its date in the HTML, for the page to keep moving) and its current value's label"
    )
    func progressWithLabels() {
        let start = Self.now.addingTimeInterval(-60)
        let end = Self.now.addingTimeInterval(240)
        let view = ProgressView(timerInterval: start...end, countsDown: true) {
            Text("Spouty")
        } currentValueLabel: {
            Text("🐳")
        }
        let drawn = TerminalRenderer(width: 40).render(frame(view, .systemMedium))
        #expect(drawn.contains("Spouty") && drawn.contains("4:00") && drawn.contains("🐳"), "\(drawn)")
        // In HTML the timer carries its date, which the widget desktop's page counts down.
        let html = HTMLRenderer().fragment(frame(view, .systemMedium))
        #expect(html.contains("data-timer=\"\(Int(end.timeIntervalSince1970))\">4:00<"), "\(html)")
        let valued = ProgressView(value: 0.5, total: 1) { Text("HP") }
        #expect(ViewTree(valued).texts == ["HP", "▰▰▰▰▰▱▱▱▱▱ 50%"])
    }

    struct Card: ViewModifier {
        func body(content: Content) -> some View {
            content.padding(12).bold()
        }
    }

    @Test(
        "a custom ViewModifier's body gets the content it is applied to; a LinearGradient paints as its first colour; onAppear and onTapGesture change nothing"
    )
    func modifiersAndGradients() {
        let card = Text("Hi").modifier(Card()).onAppear {}.onTapGesture {}
        #expect(ViewTree(card).texts == ["Hi"])
        #expect(HTMLRenderer().fragment(frame(card)).contains("padding:12px 12px 12px 12px"))
        let gradient = Text("Sky").background(
            LinearGradient(colors: [.blue, .white], startPoint: .top, endPoint: .bottom)
        )
        let plain = Text("Sky").background(Color.blue)
        #expect(HTMLRenderer().fragment(frame(gradient)) == HTMLRenderer().fragment(frame(plain)))
        let red = LinearGradient(gradient: Gradient(colors: [.red]), startPoint: .leading, endPoint: .trailing)
        #expect(HTMLRenderer().fragment(frame(red)) == HTMLRenderer().fragment(frame(Color.red)))
    }

    @Test(
        "@AppStorage reads its key from the store when the view is drawn, and writes through; UserDefaults answers value(forKey:)"
    )
    func appStorage() throws {
        let suite = "appex-test-\(UUID().uuidString)"
        let store = try #require(UserDefaults(suiteName: suite))
        defer { store.removePersistentDomain(forName: suite) }
        struct Charged: View {
            @AppStorage("supercharged", store: nil) var standard = false
            let storage: AppStorage<Bool>
            var body: some View { Text(storage.wrappedValue ? "charged" : "resting") }
        }
        let storage = AppStorage(wrappedValue: false, "supercharged", store: store)
        #expect(ViewTree(Charged(storage: storage)).texts == ["resting"])
        store.setValue(true, forKey: "supercharged")
        #expect(store.value(forKey: "supercharged") as? Bool == true)
        #expect(ViewTree(Charged(storage: storage)).texts == ["charged"])
        storage.wrappedValue = false
        #expect(store.bool(forKey: "supercharged") == false)
    }
}
