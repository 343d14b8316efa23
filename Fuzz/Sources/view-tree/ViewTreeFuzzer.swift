import AppexWidgetKit
import Foundation
import FuzzSupport

/// Decodes the input with `ViewTree(decoding:)`, as the widget host reads every entry a widget extension sends: any
/// bytes must decode or be refused with an `AppexError`, never crash, hang or allocate more than the input allows.
/// A tree that decodes must encode again and decode to the same tree.
///
/// `view-tree --write-seeds DIR` writes the seed corpus instead: trees of widget views, encoded as an extension
/// encodes them (what `Fuzz/Corpus/view-tree` holds).
@main
enum ViewTreeFuzzer {
    static func main() {
        if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--write-seeds" {
            writeSeeds(to: CommandLine.arguments[2])
        }
        LibFuzzer.run { input in
            guard let tree = try? ViewTree(decoding: input) else { return }
            guard let bytes = try? tree.encoded(), let again = try? ViewTree(decoding: bytes),
                (try? again.encoded()) == bytes
            else {
                fatalError("a tree that decoded did not survive encoding and decoding again")
            }
        }
    }

    /// Writes every seed to `directory` as `NAME.tree` and exits.
    static func writeSeeds(to directory: String) -> Never {
        let seeds: [(String, ViewTree)] = [
            ("text", ViewTree(Text("Hello"), family: .systemSmall)),
            ("list", ViewTree(SeedList(), family: .systemLarge)),
            ("shapes", ViewTree(SeedShapes(), family: .systemMedium)),
        ]
        for (name, tree) in seeds {
            guard let bytes = try? tree.encoded(), let file = fopen(directory + "/" + name + ".tree", "wb") else {
                var line = "view-tree: cannot write the seed \(name) to \(directory)\n"
                line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
                exit(1)
            }
            fwrite(bytes, 1, bytes.count, file)
            fclose(file)
        }
        exit(0)
    }
}

/// A list widget: stacks, text with styles and dates, symbols, a divider, a link and a background.
struct SeedList: View {
    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            Text("Recent").font(.headline)
            ForEach(0..<3, id: \.self) { index in
                HStack {
                    Image(systemName: "person.crop.circle")
                    Text("Person \(index)").bold()
                    Spacer()
                    Text(Date(timeIntervalSince1970: 1_750_000_000), style: .relative).foregroundStyle(.secondary)
                }
            }
            Divider()
            Link(destination: URL(string: "app://contacts")!) { Label("Open", systemImage: "arrow.up.right") }
        }
        .padding(8)
        .containerBackground(.fill.tertiary, for: .widget)
        .widgetURL(URL(string: "app://widget"))
    }
}

/// Shapes, colours, frames and a gauge.
struct SeedShapes: View {
    var body: some View {
        ZStack {
            RoundedRectangle(cornerRadius: 8).fill(Color.blue)
            VStack {
                Gauge(value: 0.4) { Text("Level") }
                ProgressView(value: 0.7)
                Circle().frame(width: 20, height: 20)
            }
            .frame(maxWidth: .infinity, alignment: .topLeading)
        }
    }
}
