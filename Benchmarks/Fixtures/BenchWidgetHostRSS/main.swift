// The process whose resident memory is the `widget.host.rss.20` figure:
//
//     BenchWidgetHostRSS shown APPS   — a WidgetHost in a new APPEX_HOME with APPS on its apps
//                                       path; refresh() (every widget's extension launched and
//                                       its timeline fetched), then every widget's frame drawn
//                                       by both renderers, the drawings kept
//     BenchWidgetHostRSS idle APPS    — the baseline: the same host over APPS (an empty folder)
//                                       and one states(): nothing to launch or draw
//
// Then prints one line, "widgets=N rss_kb=K": the widgets with a current timeline and VmRSS
// from /proc/self/status (the host alone: the extensions are other processes, and gone by
// then). The APPEX_HOME is removed before exit.
import AppexCore
import AppexWidgetHost
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("BenchWidgetHostRSS: \(message)\n".utf8))
    exit(1)
}

/// The process's resident set in kB (VmRSS of /proc/self/status).
func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { fail("no VmRSS in /proc/self/status") }
    return kilobytes
}

let arguments = CommandLine.arguments
guard arguments.count == 3, ["shown", "idle"].contains(arguments[1]) else {
    fail("usage: BenchWidgetHostRSS shown|idle APPS")
}
let home = FileManager.default.temporaryDirectory.appendingPathComponent("appex-rss-\(UUID().uuidString)").path
let configuration = WidgetHost.Configuration(environment: AppexEnvironment(home: home, appsPath: [arguments[2]]))
let shown: Int
var drawings: [String] = []
do {
    let host = try WidgetHost(configuration: configuration)
    if arguments[1] == "shown" {
        let states = try await host.refresh()
        let terminal = TerminalRenderer()
        let html = HTMLRenderer()
        for state in states {
            let frame = state.frame()
            drawings.append(terminal.render(frame))
            drawings.append(html.fragment(frame))
        }
        shown = states.filter { $0.health == .current && $0.entry(at: Date())?.tree != nil }.count
    } else {
        shown = try host.states().count
    }
    let rss = residentKilobytes()
    withExtendedLifetime((host, drawings)) {
        print("widgets=\(shown) rss_kb=\(rss)")
    }
    for path in [home, configuration.environment.keysDirectory] { try? FileManager.default.removeItem(atPath: path) }
} catch {
    fail("\(error)")
}
