// A fixture host for tests that must own the whole process: it launches and ends an extension
// many times and reports its own descriptors and zombie children before and after.
// Usage: AppexFixtureHost HOST.app BUNDLE_ID CYCLES
import AppexCore
import AppexFixtureInterfaces
import AppexHost
import Foundation

func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}

func zombieChildren() -> [Int32] {
    let me = getpid()
    var zombies: [Int32] = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        if fields.count > 1, fields[0] == "Z", Int32(fields[1]) == me { zombies.append(pid) }
    }
    return zombies
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let cycles = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: AppexFixtureHost HOST.app BUNDLE_ID CYCLES\n".utf8))
    exit(2)
}
let hostPath = arguments[1]
let bundleIdentifier = arguments[2]
let environment = AppexEnvironment.current()
do {
    let discovery = try ExtensionDiscovery(hostBundleAt: hostPath, environment: environment)
    guard
        let identity = try discovery.snapshot().extensions.first(where: { $0.bundleIdentifier == bundleIdentifier })?
            .identity
    else {
        FileHandle.standardError.write(Data("\(bundleIdentifier) not found\n".utf8))
        exit(1)
    }
    let message = Array(#"{"command":"echo","text":"cycle"}"#.utf8)
    func cycle() async throws -> Int32 {
        let process = try await AppExtensionProcess(
            configuration: .init(identity: identity, hostBundlePath: hostPath, environment: environment),
            discovery: discovery
        )
        _ = try await process.call(message, timeout: .seconds(10))
        let pid = process.processIdentifier ?? -1
        process.invalidate()
        return pid
    }
    // One warm-up cycle: first-use allocations (thread pools, caches) are not leaks. Then wait
    // until the warm-up child's descriptors are all closed (the count holds still for 200 ms).
    _ = try await cycle()
    var before = openDescriptors()
    var steady = ContinuousClock.now
    let settleLimit = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now - steady < .milliseconds(200) && ContinuousClock.now < settleLimit {
        try await Task.sleep(for: .milliseconds(20))
        let now = openDescriptors()
        if now != before {
            before = now
            steady = .now
        }
    }
    var pids = Set<Int32>()
    for _ in 0..<cycles { pids.insert(try await cycle()) }
    // Let the reapers finish: wait (bounded) until no child is left unreaped.
    let deadline = ContinuousClock.now + .seconds(10)
    while (!zombieChildren().isEmpty || openDescriptors() > before) && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
    }
    let report = LaunchCycleReport(
        cycles: cycles,
        descriptorsBefore: before,
        descriptorsAfter: openDescriptors(),
        zombies: zombieChildren(),
        distinctProcesses: pids.count
    )
    print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
