import AppexCoding
import Foundation
import FuzzSupport

/// Decodes the input with `CompactDecoder`, as an extension or host decodes every IPC argument and result from its
/// peer: as a struct of the usual field types, as `Data`, as `[String]` and as `Int`. Any bytes must decode or be
/// refused with a `CompactCodingError`, never crash or hang.
///
/// `compact-decoder --write-seeds DIR` writes the seed corpus instead: sample values of those types, encoded with
/// `CompactEncoder` (what `Fuzz/Corpus/compact-decoder` holds).
@main
enum CompactDecoderFuzzer {
    static func main() {
        if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--write-seeds" {
            writeSeeds(to: CommandLine.arguments[2])
        }
        let decoder = CompactDecoder()
        LibFuzzer.run { input in
            _ = try? decoder.decode(Sample.self, from: input)
            _ = try? decoder.decode(Data.self, from: input)
            _ = try? decoder.decode([String].self, from: input)
            _ = try? decoder.decode(Int.self, from: input)
        }
    }

    /// Writes every seed to `directory` as `NAME.compact` and exits.
    static func writeSeeds(to directory: String) -> Never {
        let encoder = CompactEncoder()
        let child = Sample(name: "child", count: -1, bytes: [], ratio: -0.0, flag: false, table: [:], kinds: [.plain])
        let empty = Sample(name: "", count: 0, bytes: [], ratio: 0, flag: nil, table: [:])
        let seeds: [(String, [UInt8]?)] = [
            ("sample", try? encoder.encode(Sample.example)),
            ("sample-empty", try? encoder.encode(empty)),
            ("sample-nested", try? encoder.encode(Sample(
                name: "parent", count: .max, bytes: Array(0...255), ratio: .nan, flag: true,
                table: ["": .min, "b": 1], kinds: [.pair(2, .infinity), .tagged("x")], children: [child, child]
            ))),
            ("data", try? encoder.encode(Data([0, 1, 2, 0xff]))),
            ("strings", try? encoder.encode(["", "appex", "é🧩", String(repeating: "a", count: 200)])),
            ("int", try? encoder.encode(-1_234_567_890_123)),
            ("int-max", try? encoder.encode(Int.max)),
        ]
        for (name, bytes) in seeds {
            guard let bytes, let file = fopen(directory + "/" + name + ".compact", "wb") else {
                var line = "compact-decoder: cannot write the seed \(name) to \(directory)\n"
                line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
                exit(1)
            }
            fwrite(bytes, 1, bytes.count, file)
            fclose(file)
        }
        exit(0)
    }
}

/// A value with every kind of field IPC interfaces use: scalars, bytes, an optional, a dictionary, an enum with
/// payloads and a recursive array (so inputs can nest deep).
struct Sample: Codable {
    enum Kind: Codable {
        case plain
        case tagged(String)
        case pair(Int, Double)
    }

    var name: String
    var count: Int
    var bytes: [UInt8]
    var ratio: Double
    var flag: Bool?
    var table: [String: Int]
    var kinds: [Kind] = []
    var children: [Sample] = []

    static let example = Sample(
        name: "com.example.host.translate", count: 42, bytes: Array("hello".utf8), ratio: 3.25, flag: true,
        table: ["one": 1, "minus": -1], kinds: [.plain, .tagged("en"), .pair(7, 0.5)]
    )
}
