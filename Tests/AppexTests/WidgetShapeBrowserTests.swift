import AppexTestTiers
import AppexWidgetHost
import AppexWidgetKit
import Foundation
import Testing

/// Shapes and gradients as a real browser lays them out: what the HTML renderer writes holds the
/// geometry SwiftUI gives them.
@Suite(.timed, .tags(.browser)) struct WidgetShapeBrowserTests {
    typealias Triangle = WidgetLayoutViewTests.Triangle

    @Test(
        "in Chromium a circle is the largest square its space holds, centred; a health bar is its share of the GeometryReader's width; a custom shape is clipped to its path; a gradient background blends"
    )
    func shapesInABrowser() async throws {
        let view = VStack(spacing: 4) {
            Circle().fill(.orange).frame(width: 80, height: 40)
            GeometryReader { geometry in
                RoundedRectangle(cornerRadius: 4).fill(.gray)
                RoundedRectangle(cornerRadius: 4).fill(.green).frame(width: geometry.size.width * 0.25)
            }
            .frame(width: 120, height: 10)
            Triangle().fill(.purple).frame(width: 40, height: 30)
        }
        .containerBackground(
            LinearGradient(colors: [.white, .yellow], startPoint: .top, endPoint: .bottom),
            for: .widget
        )
        let frame = WidgetFrame(
            kind: "shapes",
            displayName: "Shapes",
            family: .systemSmall,
            tree: ViewTree(view, family: .systemSmall),
            now: Date()
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-shapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("shapes.html")
        try HTMLRenderer().page([frame], title: "Shapes").write(to: page, atomically: true, encoding: .utf8)
        let browser = try await Browser(width: 400, height: 300)
        try await browser.open(page.absoluteString)
        try await browser.wait(for: ".shape-circle")
        let circle = try await browser.evaluate(
            """
            const c = document.querySelector('.shape-circle').getBoundingClientRect();
            const box = document.querySelector('.shape-box').getBoundingClientRect();
            return [c.width, c.height, c.left - box.left, box.right - c.right, getComputedStyle(document.querySelector('.shape-circle')).borderRadius].join(' ');
            """
        )
        #expect(circle == "\"40 40 20 20 50%\"", "a 40-point circle, 20 points from each side of its 80 by 40 frame")
        let bar = try await browser.evaluate(
            """
            const bars = [...document.querySelectorAll('.zstack .shape')].map(e => e.getBoundingClientRect());
            return bars.map(r => Math.round(r.width) + 'x' + Math.round(r.height)).join(' ');
            """
        )
        #expect(bar == "\"120x10 30x10\"")
        let clip = try await browser.evaluate(
            "return getComputedStyle([...document.querySelectorAll('.shape')].pop()).clipPath"
        )
        #expect(clip.contains("path(\\\"M 20 0 L 40 30 L 0 30 Z\\\")") || clip.contains("M20 0L40 30L0 30Z"), "\(clip)")
        let background = try await browser.evaluate(
            "return getComputedStyle(document.querySelector('.root')).backgroundImage"
        )
        #expect(background.contains("linear-gradient(rgb(255, 255, 255), rgb(255, 204, 0))"), "\(background)")
        if let shots = ProcessInfo.processInfo.environment["APPEX_SCREENSHOTS"] {
            try await browser.screenshot(to: shots + "/widget-shapes.png")
        }
    }
}
