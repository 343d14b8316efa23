import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A sync's progress: redrawn in place on a terminal, a line every page otherwise (a log).
final class ProgressLine: Sendable {
    let isTerminal = isatty(STDOUT_FILENO) == 1

    func show(received: Int, more: Bool) {
        if isTerminal {
            let cells = min(30, received / 50)
            let bar = String(repeating: "█", count: cells) + String(repeating: "░", count: 30 - cells)
            // Straight to the descriptor: print's buffer would hold the line until a newline.
            FileHandle.standardOutput.write(Data("\r\(bar) \(received) contacts\(more ? "…" : " ")".utf8))
        } else {
            print("\(received) contacts\(more ? "…" : "")")
        }
    }

    func finish() {
        if isTerminal { print("") }
    }
}
