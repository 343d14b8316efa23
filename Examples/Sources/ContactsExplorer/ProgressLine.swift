import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A sync's progress: redrawn in place on a terminal, a line every page otherwise (a log), each
/// written as the page is stored.
final class ProgressLine: Sendable {
    let isTerminal = isatty(STDOUT_FILENO) == 1

    func show(received: Int, more: Bool) {
        if isTerminal {
            let cells = min(30, received / 50)
            let bar = String(repeating: "█", count: cells) + String(repeating: "░", count: 30 - cells)
            // Straight to the descriptor: print's buffer would hold the line until a newline.
            FileHandle.standardOutput.write(Data("\r\(bar) \(received) contacts\(more ? "…" : " ")".utf8))
        } else {
            // A line a page, written at once (print's buffer would keep it until exit): whoever
            // reads the log sees each page as it is stored.
            FileHandle.standardOutput.write(Data("\(received) contacts\(more ? "…" : "")\n".utf8))
        }
    }

    func finish() {
        if isTerminal { print("") }
    }
}
