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
        "a Path is drawn at its coordinates in the space it is offered: four health bars in a GeometryReader, each its width and colour, clipped to its outline in the HTML"
    )
    func pathBars() {
        let bars = GeometryReader { geometry in
            let width = geometry.size.width / 4
            ForEach(0..<4) { index in
                Path { path in
                    path.addLines([
                        CGPoint(x: Double(index) * width, y: 0),
                        CGPoint(x: Double(index) * width + width - 2, y: 0),
                        CGPoint(x: Double(index) * width + width - 2, y: geometry.size.height),
                        CGPoint(x: Double(index) * width, y: geometry.size.height),
                    ])
                    path.closeSubpath()
                }
                .fill(index < 3 ? Color.green : Color.gray)
            }
        }
        .frame(width: 160, height: 10)
        let html = HTMLRenderer().fragment(frame(bars))
        for left in [0, 40, 80, 120] {
            #expect(html.contains("clip-path:path('M\(left) 0L\(left + 38) 0L\(left + 38) 10L\(left) 10Z')"), "\(html)")
        }
        #expect(html.components(separatedBy: "bg-green").count == 4 && html.contains("bg-gray"), "\(html)")
        var empty = Path()
        #expect(empty.isEmpty && empty.boundingRect.isNull && empty.currentPoint == nil)
        empty.addRect(CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(empty.boundingRect == CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(empty.currentPoint == CGPoint(x: 1, y: 2))
    }

    struct Triangle: Shape {
        func path(in rect: CGRect) -> Path {
            Path { path in
                path.move(to: CGPoint(x: rect.midX, y: rect.minY))
                path.addLine(to: CGPoint(x: rect.maxX, y: rect.maxY))
                path.addLine(to: CGPoint(x: rect.minX, y: rect.maxY))
                path.closeSubpath()
            }
        }
    }

    @Test(
        "shapes are drawn with their corners and strokes: a rounded rectangle's radius, a circle square in its space, a capsule, an inset strokeBorder, a stroked path in an svg, a custom Shape's path made for its frame; a terminal boxes the stroked ones"
    )
    func shapes() throws {
        let view = VStack {
            RoundedRectangle(cornerRadius: 8).fill(.blue)
            Circle().stroke(.red, lineWidth: 2)
            Capsule().inset(by: 4).strokeBorder(lineWidth: 3)
            Rectangle().foregroundStyle(.green)
            Triangle().frame(width: 40, height: 20)
            Path(ellipseIn: CGRect(x: 0, y: 0, width: 20, height: 10)).stroke(.orange, lineWidth: 1.5)
        }
        let html = HTMLRenderer().fragment(frame(view, .systemLarge))
        #expect(html.contains("class=\"shape bg-blue grow stretch\" style=\"border-radius:8px\""), "\(html)")
        #expect(
            html.contains("<div class=\"shape-box grow stretch\"><div class=\"shape shape-circle fg-red\""),
            "\(html)"
        )
        #expect(html.contains("outline:2px solid currentColor;outline-offset:-1px"), "\(html)")
        #expect(html.contains("padding:4px 4px 4px 4px") && html.contains("shape shape-capsule"), "\(html)")
        #expect(html.contains("border:3px solid currentColor"), "\(html)")
        // A shape with no paint of its own is filled with the foreground style.
        #expect(html.contains("fg-green") && html.contains("shape bg-level0"), "\(html)")
        #expect(html.contains("clip-path:path('M20 0L40 20L0 20Z')"), "\(html)")
        #expect(html.contains("<svg aria-hidden=\"true\"><path d=\"M20 5C20 7.8"), "\(html)")
        #expect(html.contains("stroke-width=\"1.5\""), "\(html)")
        let stroked = VStack {
            Circle().stroke(.red, lineWidth: 2).frame(height: 60)
            Rectangle().stroke().frame(height: 60)
        }
        let drawn = TerminalRenderer(width: 20).render(frame(stroked, .systemLarge))
        #expect(drawn.contains("╭") && drawn.contains("╯") && drawn.contains("┌") && drawn.contains("┘"), "\(drawn)")
        // The tree keeps each shape through the wire.
        let tree = ViewTree(view, family: .systemLarge)
        #expect(try ViewTree(decoding: tree.encoded()) == tree)
    }

    @Test(
        "a Path's arcs, ellipses and rounded corners become cubic curves through the right points; its bounding box holds them"
    )
    func pathGeometry() {
        var arc = Path()
        arc.addArc(
            center: CGPoint(x: 10, y: 10),
            radius: 10,
            startAngle: .zero,
            endAngle: .degrees(180),
            clockwise: false
        )
        #expect(arc.currentPoint.map { abs($0.x) < 1e-9 && abs($0.y - 10) < 1e-9 } == true)
        #expect(arc.elements.filter { if case .curve = $0 { true } else { false } }.count == 2)
        #expect(abs(arc.boundingRect.maxY - 20) < 1e-9, "a half turn down through (10, 20)")
        var back = Path()
        back.addArc(center: .zero, radius: 1, startAngle: .zero, endAngle: .degrees(90), clockwise: true)
        #expect(back.elements.count == 1 + 3, "clockwise from 0 to 90 degrees goes the long way: three quarter turns")
        let rounded = Path(roundedRect: CGRect(x: 0, y: 0, width: 20, height: 10), cornerRadius: 50)
        #expect(rounded.boundingRect == CGRect(x: 0, y: 0, width: 20, height: 10), "the radius is at most half a side")
        #expect(
            Path(ellipseIn: CGRect(x: 2, y: 2, width: 6, height: 4)).boundingRect
                == CGRect(x: 2, y: 2, width: 6, height: 4)
        )
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
        "a custom ViewModifier's body gets the content it is applied to; a LinearGradient is a CSS gradient along its direction, a text's colour is its first, a one-colour one is that colour; onAppear and onTapGesture change nothing"
    )
    func modifiersAndGradients() throws {
        let card = Text("Hi").modifier(Card()).onAppear {}.onTapGesture {}
        #expect(ViewTree(card).texts == ["Hi"])
        #expect(HTMLRenderer().fragment(frame(card)).contains("padding:12px 12px 12px 12px"))
        let sky = Text("Sky").background(LinearGradient(colors: [.blue, .white], startPoint: .top, endPoint: .bottom))
        #expect(HTMLRenderer().fragment(frame(sky)).contains("background:linear-gradient(180deg,#007aff,#fff)"))
        let across = Rectangle().fill(
            .linearGradient(
                Gradient(colors: [.red, Color(red: 0, green: 1, blue: 0)]),
                startPoint: .leading,
                endPoint: .trailing
            )
        )
        #expect(HTMLRenderer().fragment(frame(across)).contains("linear-gradient(90deg,#ff3b30,rgba(0,255,0,1))"))
        let text = Text("Hot").foregroundStyle(
            LinearGradient(colors: [.orange, .red], startPoint: .top, endPoint: .bottom)
        )
        #expect(
            HTMLRenderer().fragment(frame(text)) == HTMLRenderer().fragment(frame(Text("Hot").foregroundStyle(.orange)))
        )
        let red = LinearGradient(gradient: Gradient(colors: [.red]), startPoint: .leading, endPoint: .trailing)
        #expect(HTMLRenderer().fragment(frame(red)) == HTMLRenderer().fragment(frame(Color.red)))
        let tree = ViewTree(sky)
        #expect(try ViewTree(decoding: tree.encoded()) == tree)
    }

    @Test(
        "a gradient whose colour is itself a gradient, or a shape of an unknown kind, is refused with where it was read"
    )
    func malformedShapesAndGradients() throws {
        // A background (0d) painted with a gradient (05) of one colour that is a gradient again.
        let cases: [(bytes: [UInt8], says: String)] = [
            // A background (0d) painted with a gradient (05) of one colour that is a gradient again.
            ([2, 0x0d, 5, 1, 5, 0], "a gradient's colour is itself a gradient"),
            ([2, 0x10, 9], "9 is not a kind of shape"),
            ([2, 0x10, 5, 1, 7], "7 is not a kind of path element"),
            ([2, 0x10, 0, 0, 0, 3], "3 is not a way to draw a shape"),
        ]
        for (bytes, says) in cases {
            let error = #expect(throws: AppexError.self) { try ViewTree(decoding: bytes) }
            #expect(
                error?.code == .protocolViolation && "\(error.map { "\($0)" } ?? "")".contains(says),
                "\(String(describing: error))"
            )
        }
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
