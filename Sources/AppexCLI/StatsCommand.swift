import AppexCommandCore
import AppexCore
import AppexHost
import ArgumentParser
import Foundation

/// `appex stats`: what each extension has done in every running host process of this
/// `APPEX_HOME` (apps and the widget host alike), one row per extension, read from the files
/// the hosts count into (docs/decisions/0164-trace-context-across-the-boundary.md).
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what each extension has done in the running hosts: one row per extension.",
        discussion: """
            Reads the figures every host process (an app, or `appex widgets run`) keeps in \
            $APPEX_HOME/Run/Statistics while it runs, without disturbing it. Per extension: its \
            process now, launches, crashes (ended by a signal or a non-zero status), interruptions \
            (every end the host did not ask for), calls, failed calls, the mean and longest call, \
            bytes sent and received, widget reloads and the reload budget its last reloaded widget \
            has used today, and refusals (keychain requests beyond its entitlements, ends past a \
            resource limit). A file left by a host that died is removed.
            """
    )

    @Option(help: ArgumentHelp("Only the host process with this pid.", valueName: "PID"))
    var pid: Int32?

    @Flag(help: "Print a JSON array of host processes, each with its extensions.")
    var json = false

    @Option(
        help: ArgumentHelp("Print the table again every SECONDS until interrupted.", valueName: "SECONDS")
    )
    var watch: Double?

    func validate() throws {
        if let watch, !(watch > 0 && watch <= 86_400) {
            throw ValidationError("--watch needs a number of seconds above 0, at most 86400")
        }
    }

    func run() async throws {
        let environment = AppexEnvironment.current()
        while true {
            var hosts = try await reporting { () async throws(AppexError) in
                try await HostStatistics.running(in: environment)
            }
            if let pid { hosts = hosts.filter { $0.processIdentifier == pid } }
            if json {
                try printJSON(hosts)
            } else if hosts.allSatisfy(\.extensions.isEmpty) {
                print(
                    pid.map { "host process \($0) is not running, or has launched no extension" }
                        ?? "no running host has launched an extension (APPEX_HOME=\(environment.home))"
                )
            } else {
                print(Self.table(hosts), terminator: "")
            }
            guard let watch else { return }
            try await Task.sleep(for: .seconds(watch))
            print("")
        }
    }

    /// The rows, in columns as wide as their widest cell.
    static func table(_ hosts: [HostStatistics]) -> String {
        let header = [
            "HOST", "PID", "EXTENSION", "RUNNING", "LAUNCHES", "CRASHES", "INTERRUPTIONS", "CALLS", "FAILED",
            "MEAN", "LONGEST", "SENT", "RECEIVED", "RELOADS", "BUDGET", "REFUSALS",
        ]
        var rows = [header]
        for host in hosts {
            for row in host.extensions {
                rows.append([
                    host.name, "\(host.processIdentifier)", row.bundleIdentifier,
                    row.processIdentifier.map {
                        "pid \($0)" + (row.runningProcesses > 1 ? " +\(row.runningProcesses - 1)" : "")
                    }
                        ?? "-",
                    "\(row.launches)", "\(row.crashes)", "\(row.interruptions)", "\(row.calls)", "\(row.failedCalls)",
                    row.meanCall.map(Self.time) ?? "-", row.calls == 0 ? "-" : Self.time(row.longestCall),
                    Self.bytes(row.bytesSent), Self.bytes(row.bytesReceived),
                    row.dailyReloadBudget == 0 ? "-" : "\(row.widgetReloads)",
                    row.dailyReloadBudget == 0 ? "-" : "\(row.reloadsToday)/\(row.dailyReloadBudget)",
                    "\(row.refusals)",
                ])
            }
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                column == row.count - 1
                    ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ") + "\n"
        }
        .joined()
    }

    /// `850 ns`, `41 µs`, `2.3 ms`, `1.20 s`.
    static func time(_ duration: Duration) -> String {
        let nanoseconds = Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
        switch nanoseconds {
        case ..<1_000: return "\(Int(nanoseconds)) ns"
        case ..<10_000: return String(format: "%.1f µs", nanoseconds / 1e3)
        case ..<1_000_000: return "\(Int(nanoseconds / 1e3)) µs"
        case ..<1_000_000_000: return String(format: "%.1f ms", nanoseconds / 1e6)
        default: return String(format: "%.2f s", nanoseconds / 1e9)
        }
    }

    /// `512 B`, `2.1 KiB`, `3.4 MiB`, `1.2 GiB`.
    static func bytes(_ count: UInt64) -> String {
        let value = Double(count)
        switch count {
        case ..<1024: return "\(count) B"
        case ..<(1 << 20): return String(format: "%.1f KiB", value / 1024)
        case ..<(1 << 30): return String(format: "%.1f MiB", value / 1_048_576)
        default: return String(format: "%.1f GiB", value / 1_073_741_824)
        }
    }
}
