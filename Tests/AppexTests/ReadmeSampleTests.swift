import AppexTestTiers
import Foundation
import Testing

/// The README's code samples compile as shown: each is a target of this package (Tests/Samples,
/// written by `Scripts/samples.sh`), with a new user's settings, depending on the products it names.
///
/// A sample is a ```swift block right after an HTML comment `<!-- sample: PRODUCT[, PRODUCT] -->`
/// naming the products its target depends on; the block is the whole of the target's source.
@Suite(.timed) struct ReadmeSampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Sample: CustomTestStringConvertible, Sendable {
        var products: [String]
        var code: String
        var line: Int
        /// The document the sample is in, relative to the repository (`README.md`,
        /// `Examples/README.md`, `docs/cli.md`, a DocC article).
        var document = "README.md"
        var testDescription: String {
            "\(document) line \(line) (\(products.joined(separator: ", ")))"
        }
    }

    /// The documents whose samples are compiled, in this order (Scripts/samples.sh reads the same):
    /// the READMEs, then `docs/*.md`, then every DocC article (`Sources/*/*.docc/*.md`), each
    /// group sorted by path.
    static let documents: [String] = {
        let files = FileManager.default
        func markdown(in folder: String) -> [String] {
            ((try? files.contentsOfDirectory(atPath: repository.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".md") }.sorted().map { folder + "/" + $0 }
        }
        let catalogs =
            ((try? files.contentsOfDirectory(atPath: repository.appendingPathComponent("Sources").path)) ?? [])
            .sorted().map { "Sources/\($0)/\($0).docc" }
        return ["README.md", "Examples/README.md"] + markdown(in: "docs") + catalogs.flatMap { markdown(in: $0) }
    }()

    /// The start of the folder names of `document`'s samples: `Readme`, `Examples`, `Docs` and the
    /// file's name (`DocsCli`), or a DocC article's module and name (`AppexWidgetKitWritingAWidget`).
    static func prefix(of document: String) -> String {
        switch document {
        case "README.md": return "Readme"
        case "Examples/README.md": return "Examples"
        default:
            let parts = document.split(separator: "/").map(String.init)
            let stem = (parts.last ?? "").replacingOccurrences(of: ".md", with: "")
            let words = stem.split { !$0.isLetter && !$0.isNumber }.map { $0.prefix(1).uppercased() + $0.dropFirst() }
            return (parts.first == "docs" ? "Docs" : parts.count > 1 ? parts[1] : "") + words.joined()
        }
    }

    static let samples: [Sample] = documents.flatMap { samples(in: $0) }

    /// The samples of `document` (a path relative to the repository).
    static func samples(in document: String) -> [Sample] {
        guard let text = try? String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8) else {
            return []
        }
        let lines = text.components(separatedBy: "\n")
        var samples: [Sample] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("<!-- sample:"), line.hasSuffix("-->"), index + 1 < lines.count,
                lines[index + 1].hasPrefix("```swift")
            {
                let products = line.dropFirst("<!-- sample:".count).dropLast("-->".count)
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                var end = index + 2
                while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
                samples.append(
                    Sample(
                        products: products,
                        code: lines[(index + 2)..<end].joined(separator: "\n"),
                        line: index + 1,
                        document: document
                    )
                )
                index = end
            }
            index += 1
        }
        return samples
    }

    @Test(
        "every sample marker in the repository's Markdown is in a document whose samples are compiled, right before a swift block: none is skipped"
    )
    func noMarkerIsSkipped() async throws {
        let listed = try await run("/usr/bin/git", ["-C", Self.repository.path, "ls-files", "*.md"], environment: [:])
        try #require(listed.status == 0, "\(listed.standardError)")
        var markers = 0
        for path in listed.standardOutput.split(separator: "\n").map(String.init) {
            let text = (try? String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)) ?? ""
            let lines = text.components(separatedBy: "\n")
            for (index, line) in lines.enumerated()
            where line.trimmingCharacters(in: .whitespaces).hasPrefix("<!-- sample:") {
                markers += 1
                #expect(
                    Self.documents.contains(path),
                    "\(path):\(index + 1) has a sample marker in a document no test reads"
                )
                #expect(
                    index + 1 < lines.count && lines[index + 1].hasPrefix("```swift"),
                    "\(path):\(index + 1): a sample marker not right before a ```swift block is skipped"
                )
            }
        }
        #expect(markers == Self.samples.count)
    }

    @Test("the README marks its extension and widget samples")
    func samplesAreFound() {
        #expect(Self.samples.contains { $0.products == ["AppexExtension"] })
        #expect(Self.samples.contains { $0.products == ["AppexWidgetKit"] })
        #expect(Self.samples.contains { $0.document == "Examples/README.md" && $0.products == ["ContactsKit"] })
        #expect(
            Self.samples.contains { $0.document == "Examples/README.md" && $0.products.contains("AppexWidgetKit") }
        )
    }

    /// Whether a sample is an extension's (it depends on `AppexExtension` or `AppexWidgetKit`
    /// alone): what it links is checked below.
    static func isExtension(_ sample: Sample) -> Bool {
        sample.products == ["AppexExtension"] || sample.products == ["AppexWidgetKit"]
    }

    /// The folder of Tests/Samples that `Scripts/samples.sh` writes `sample` to (its document's
    /// ``prefix(of:)`` and its number in the document), and the target Package.swift makes of it.
    static func folder(of sample: Sample) throws -> (name: String, target: String) {
        let peers = samples(in: sample.document)
        let number = try #require(peers.firstIndex { $0.line == sample.line }) + 1
        let name = prefix(of: sample.document) + "\(number)"
        return (name, "Sample" + name)
    }

    static let samplesFolder = repository.appendingPathComponent("Tests/Samples").path

    @Test(
        "Tests/Samples holds one folder per README sample and nothing else (run Scripts/samples.sh after changing one)"
    )
    func noStaleSample() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.samplesFolder).sorted()
        #expect(folders == (try Self.samples.map { try Self.folder(of: $0).name }).sorted())
    }

    @Test(
        "each README sample is compiled as printed: its Tests/Samples folder holds its block byte for byte and the products it names, and its target was built with the package",
        arguments: samples
    )
    func compiled(_ sample: Sample) throws {
        let (name, target) = try Self.folder(of: sample)
        let folder = Self.samplesFolder + "/" + name
        let source = folder + "/" + (sample.code.contains("@main") ? "Sample.swift" : "main.swift")
        let written = try? String(contentsOfFile: source, encoding: .utf8)
        #expect(
            written == sample.code,
            "\(source) is not the sample at \(sample.testDescription): run Scripts/samples.sh"
        )
        let products = try? String(contentsOfFile: folder + "/products", encoding: .utf8)
        #expect(products == sample.products.joined(separator: "\n") + "\n", "run Scripts/samples.sh")
        let executable = builtExecutable(target)
        #expect(
            FileManager.default.isExecutableFile(atPath: executable),
            "\(executable) was not built: the sample at \(sample.testDescription) is not a target of the package"
        )
    }

    @Test(
        "an extension's sample links neither swift-crypto, GRDB, the bundle code (AppexCore) nor the stores, nor Foundation beyond FoundationEssentials",
        arguments: samples.filter(isExtension)
    )
    func extensionLinksLittle(_ sample: Sample) async throws {
        let executable = builtExecutable(try Self.folder(of: sample).target)
        // Every module of the package a target depends on is linked into its executable whole:
        // a symbol of one of these modules means the extension's product depends on it.
        let defined = try await run("/usr/bin/nm", ["--defined-only", executable], environment: [:])
        try #require(defined.status == 0, "\(defined.standardError)")
        let heavy = [
            "CCryptoBoringSSL_": "swift-crypto's BoringSSL", "$s6Crypto": "Crypto", "$s4GRDB": "GRDB",
            "$s9AppexCore": "AppexCore", "$s10AppexStore": "AppexStore",
        ]
        for (prefix, module) in heavy {
            #expect(
                !defined.standardOutput.contains(" " + prefix),
                "\(sample.testDescription) links \(module): an extension's product grew a dependency"
            )
        }
        // Linked dynamically here, what it uses of Foundation is an undefined symbol (on Linux
        // Foundation brings ICU and CoreFoundation: 50 MB more in a static executable, 1.4 ms more
        // at each launch). The exceptions are the Foundation types WidgetKit's and SwiftUI's API
        // itself takes, in code a widget runs only when it uses that API, which a release build
        // drops with the code that is never called: the geometry (`CGSize` of `displaySize`,
        // `CGPoint` and `CGRect` of `Path` and `GeometryProxy`, `CGFloat`) and `UserDefaults`
        // (`@AppStorage`).
        let undefined = try await run("/usr/bin/nm", ["-u", executable], environment: [:])
        let apiTypes = ["6CGSizeV", "7CGPointV", "6CGRectV", "7CGFloatV", "12UserDefaultsC"].map {
            "$s10Foundation" + $0
        }
        let foundation = undefined.standardOutput.split(separator: "\n").filter { line in
            line.contains("$s10Foundation") && !apiTypes.contains { line.contains($0) }
        }
        #expect(foundation.isEmpty, "the sample links Foundation itself: \(foundation.prefix(5))")
        #expect(
            defined.standardOutput.contains("$s14AppexExtension")
                || defined.standardOutput.contains("$s14AppexWidgetKit")
        )
    }

    /// The executable of `target`, built beside `appex`.
    func builtExecutable(_ target: String) -> String {
        URL(fileURLWithPath: appexExecutable).deletingLastPathComponent().appendingPathComponent(target).path
    }
}
