import AppexCore
@_spi(Wire) import AppexIPC
import AppexSystem

// What `appex conform` needs beyond a host's calls: launching without a call, and frames no
// host sends (docs/protocol.md, "Conformance").
extension AppExtensionProcess {
    /// Launches the process unless it runs (the handshake included), and returns it.
    package func launchForConformance() async throws(AppexError) -> ConformanceChild {
        ConformanceChild(process: try await runningOffPool().process)
    }

    /// Sends one frame of kind `kind` (any byte, known or not) with `payload` on the running
    /// process's connection, as no host would: the conformance suite's bad frame.
    package func sendFrameForConformance(kind: UInt8, requestID: UInt64, payload: [UInt8]) async throws(AppexError) {
        let child = try await runningOffPool()
        try child.connection.channel.send(
            Frame(kind: Frame.Kind(rawValue: kind), requestID: requestID, payload: payload)
        )
    }

    /// The shared-memory threshold of this process's connections: a payload this large or
    /// larger travels in a sealed memfd.
    package var sharedMemoryThresholdForConformance: Int {
        configuration.channel.sharedMemoryThreshold
    }
}

/// A launched extension process, as `appex conform` watches it.
package struct ConformanceChild: Sendable {
    let process: ChildProcess

    /// Its pid, as the host sees it.
    package var pid: Int32 { process.pid }

    /// How it ended, in words ("exited with status 0", "killed by signal 9"), waiting up to
    /// `timeout`; `nil` while it still runs.
    package func ending(within timeout: Duration) -> String? {
        process.exitStatus(within: timeout)?.description
    }
}
