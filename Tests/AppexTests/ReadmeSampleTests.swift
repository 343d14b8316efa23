import Foundation
import Testing

/// The README's code samples compile as shown, in a new package that depends on Appex by path,
/// as a new user would try them.
///
/// A sample is a ```swift block right after an HTML comment `<!-- sample: PRODUCT[, PRODUCT] -->`
/// naming the products its target depends on; the block is the whole of the target's source. In
/// `Examples/README.md`, products named `Appex…` come from Appex, the others from Examples.
@Suite(.timed) struct ReadmeSampleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Sample: CustomTestStringConvertible, Sendable {
        var products: [String]
        var code: String
        var line: Int
        /// The package the products come from, relative to the repository: "" for Appex itself,
        /// "Examples" for the product's samples (`Examples/README.md`).
        var package = ""
        var testDescription: String {
            "\(package.isEmpty ? "" : package + "/")README line \(line) (\(products.joined(separator: ", ")))"
        }
    }

    static let samples: [Sample] = samples(in: "") + samples(in: "Examples")

    /// The samples of the README in `package` (a folder of the repository; "" for its root).
    static func samples(in package: String) -> [Sample] {
        let readme = package.isEmpty ? "README.md" : package + "/README.md"
        guard let text = try? String(contentsOf: repository.appendingPathComponent(readme), encoding: .utf8) else {
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
                        package: package
                    )
                )
                index = end
            }
            index += 1
        }
        return samples
    }

    @Test("the README marks its extension and widget samples")
    func samplesAreFound() {
        #expect(Self.samples.contains { $0.products == ["AppexExtension"] })
        #expect(Self.samples.contains { $0.products == ["AppexWidgetKit"] })
        #expect(Self.samples.contains { $0.package == "Examples" && $0.products == ["ContactsKit"] })
        #expect(Self.samples.contains { $0.package == "Examples" && $0.products.contains("AppexWidgetKit") })
    }

    @Test(
        "each README sample builds in a new package that depends on Appex by path",
        .timeLimit(.minutes(10)),
        arguments: samples
    )
    func builds(_ sample: Sample) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = folder.appendingPathComponent("Sources/Sample")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        // A path dependency's identity is its folder's name. In the product's README, a product
        // named Appex… comes from Appex itself, the others from the product's package.
        func packageFolder(of product: String) -> URL {
            sample.package.isEmpty || product.hasPrefix("Appex")
                ? Self.repository : Self.repository.appendingPathComponent(sample.package)
        }
        let dependencies = sample.products.map {
            ".product(name: \"\($0)\", package: \"\(packageFolder(of: $0).lastPathComponent)\")"
        }.joined(separator: ", ")
        let packages = Set(sample.products.map { packageFolder(of: $0).path }).sorted().map {
            ".package(path: \"\($0)\")"
        }
        .joined(separator: ", ")
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "Sample",
                dependencies: [\(packages)],
                targets: [.executableTarget(name: "Sample", dependencies: [\(dependencies)], swiftSettings: [.swiftLanguageMode(.v6)])]
            )
            """
        try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        // A sample with top-level code (a host's) is the program's main.swift.
        let file = sample.code.contains("@main") ? "Sample.swift" : "main.swift"
        try sample.code.write(to: sources.appendingPathComponent(file), atomically: true, encoding: .utf8)
        let output = try await swift(["build", "--package-path", folder.path], timeout: 600)
        #expect(
            output.status == 0,
            "the sample at \(sample.testDescription) does not build:\n\(output.standardOutput.suffix(4000))\(output.standardError.suffix(2000))"
        )
        if sample.products == ["AppexExtension"] || sample.products == ["AppexWidgetKit"] {
            // An extension's build compiles neither swift-crypto (BoringSSL), nor GRDB, nor the
            // bundle and plist code. SwiftPM makes a folder for every target of the graph: count
            // the objects compiled into each.
            let debug = folder.appendingPathComponent(".build/debug")
            func objects(_ module: String) -> Int {
                let enumerator = FileManager.default.enumerator(
                    atPath: debug.appendingPathComponent(module + ".build").path
                )
                return (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".o") }.count
            }
            for module in ["CCryptoBoringSSL", "Crypto", "GRDB", "AppexCore", "AppexStore"] {
                #expect(objects(module) == 0, "building an extension compiled \(module)")
            }
            #expect(
                objects(sample.products[0]) > 0,
                "no \(sample.products[0]) objects in \(debug.path): the check looks in the wrong place"
            )
            // Nor does it use Foundation beyond FoundationEssentials (on Linux that brings ICU and
            // CoreFoundation: 50 MB more in a static executable, 1.4 ms more at each launch).
            // Linked dynamically here, what it uses is an undefined symbol. `CGSize`'s initializer
            // is the one exception: `displaySize` (WidgetKit's API) makes one, and a release build
            // drops it with the code that is never called.
            let symbols = try await run(
                "/usr/bin/nm",
                ["-u", debug.appendingPathComponent("Sample").path],
                environment: ProcessInfo.processInfo.environment
            )
            let foundation = symbols.standardOutput.split(separator: "\n").filter {
                $0.contains("$s10Foundation") && !$0.contains("$s10Foundation6CGSizeV")
            }
            #expect(foundation.isEmpty, "the sample links Foundation itself: \(foundation.prefix(5))")
        }
    }
}
