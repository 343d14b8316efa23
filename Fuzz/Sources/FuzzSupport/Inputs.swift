// What the targets share besides the driver: inputs made of parts, and seeds written to a folder.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An input made of parts: a target that reads more than one thing (files of a bundle, a stream and the memory passed
/// with it) takes them from one input, split on ``separator``.
public enum FuzzInput {
    /// What separates the parts of an input: the four bytes `\n%%\n`.
    public static let separator: [UInt8] = Array("\n%%\n".utf8)

    /// `input` split on ``separator`` into at most `limit` parts: the last holds the rest, separators included. An
    /// input without a separator is one part.
    public static func parts(of input: [UInt8], limit: Int) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while parts.count < limit - 1 && index + separator.count <= input.count {
            if input[index..<index + separator.count].elementsEqual(separator) {
                parts.append(input[start..<index])
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        parts.append(input[start...])
        return parts
    }

    /// The input whose parts are `parts`: what ``parts(of:limit:)`` splits again.
    public static func joining(_ parts: [[UInt8]]) -> [UInt8] {
        var input: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index > 0 { input += separator }
            input += part
        }
        return input
    }
}

/// A target's seed corpus, written by its `--write-seeds DIR` mode.
public enum Seeds {
    /// Writes each seed's bytes to `directory/NAME` and exits; exits with status 1, naming the seed, when one could not
    /// be made (`nil` bytes) or written.
    public static func write(_ seeds: [(name: String, bytes: [UInt8]?)], to directory: String, target: String) -> Never
    {
        for (name, bytes) in seeds {
            var written = false
            if let bytes, let file = fopen(directory + "/" + name, "wb") {
                written = fwrite(bytes, 1, bytes.count, file) == bytes.count
                written = fclose(file) == 0 && written
            }
            guard written else {
                printError("\(target): cannot write the seed \(name) to \(directory)")
                exit(1)
            }
        }
        exit(0)
    }

    /// Whether the process was started as `TARGET --write-seeds DIR`; the folder when it was.
    public static var folderToWrite: String? {
        let arguments = CommandLine.arguments
        return arguments.count == 3 && arguments[1] == "--write-seeds" ? arguments[2] : nil
    }
}

/// Writes `line` and a newline to standard error.
private func printError(_ line: String) {
    var line = line + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
