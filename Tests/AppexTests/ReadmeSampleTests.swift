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

    /// Whether a sample is an extension's (it depends on `AppexExtension` or `AppexWidgetKit`
    /// alone): those build in a package of their own, where the checks below can see that nothing
    /// heavier was compiled.
    static func isExtension(_ sample: Sample) -> Bool {
        sample.products == ["AppexExtension"] || sample.products == ["AppexWidgetKit"]
    }

    /// A new package, with one executable target per sample (`Sample<N>`, N its index), that
    /// depends on Appex (and the product's package) by path, as a new user's would.
    struct SamplePackage: Sendable {
        let folder: URL
        let samples: [(index: Int, sample: Sample)]
        let output: ProcessOutput

        /// The target of the sample at `index`.
        static func target(_ index: Int) -> String { "Sample\(index)" }

        static func build(_ samples: [(index: Int, sample: Sample)], named name: String) async throws -> SamplePackage {
            // One folder per group, made afresh at each run: no stale build plan, and no copy of
            // Appex's build left behind per run (the cases share it, so none can remove it).
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-readme-\(name)")
            try? FileManager.default.removeItem(at: folder)
            // A path dependency's identity is its folder's name. In the product's README, a product
            // named Appex… comes from Appex itself, the others from the product's package.
            func packageFolder(of product: String, in sample: Sample) -> URL {
                sample.package.isEmpty || product.hasPrefix("Appex")
                    ? repository : repository.appendingPathComponent(sample.package)
            }
            var targets: [String] = []
            var packages: Set<String> = []
            for (index, sample) in samples {
                let sources = folder.appendingPathComponent("Sources/\(target(index))")
                try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
                let dependencies = sample.products.map {
                    ".product(name: \"\($0)\", package: \"\(packageFolder(of: $0, in: sample).lastPathComponent)\")"
                }.joined(separator: ", ")
                packages.formUnion(sample.products.map { packageFolder(of: $0, in: sample).path })
                targets.append(
                    ".executableTarget(name: \"\(target(index))\", dependencies: [\(dependencies)], swiftSettings: [.swiftLanguageMode(.v6)])"
                )
                // A sample with top-level code (a host's) is the program's main.swift.
                let file = sample.code.contains("@main") ? "Sample.swift" : "main.swift"
                try sample.code.write(to: sources.appendingPathComponent(file), atomically: true, encoding: .utf8)
            }
            let manifest = """
                // swift-tools-version: 6.1
                import PackageDescription
                let package = Package(
                    name: "Samples",
                    dependencies: [\(packages.sorted().map { ".package(path: \"\($0)\")" }.joined(separator: ", "))],
                    targets: [
                        \(targets.joined(separator: ",\n        "))
                    ]
                )
                """
            try manifest.write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            let output = try await swift(["build", "--package-path", folder.path], timeout: 900)
            return SamplePackage(folder: folder, samples: samples, output: output)
        }

        /// The compiler's errors about the sample at `index` (those that name its source folder).
        func errors(of index: Int) -> [Substring] {
            (output.standardOutput + "\n" + output.standardError).split(separator: "\n").filter {
                $0.contains("/Sources/\(Self.target(index))/") && $0.contains("error:")
            }
        }

        /// Whether the sample's executable was made.
        func built(_ index: Int) -> Bool {
            FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(".build/debug/\(Self.target(index))").path
            )
        }

        /// How many objects were compiled into `module`: SwiftPM makes a folder for every target
        /// of the graph.
        func objects(_ module: String) -> Int {
            let enumerator = FileManager.default.enumerator(
                atPath: folder.appendingPathComponent(".build/debug/\(module).build").path
            )
            return (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".o") }.count
        }
    }

    /// The two packages, each built once however many samples ask: the extensions' samples and
    /// all the others (a build of Appex and its dependencies is minutes of both cores; one per
    /// sample made this suite most of the test run).
    actor Builds {
        private var packages: [Bool: Task<SamplePackage, any Error>] = [:]

        func package(forExtensions extensions: Bool) async throws -> SamplePackage {
            if let built = packages[extensions] { return try await built.value }
            let members = samples.enumerated().map { (index: $0.offset, sample: $0.element) }.filter {
                isExtension($0.sample) == extensions
            }
            let task = Task { try await SamplePackage.build(members, named: extensions ? "extensions" : "others") }
            packages[extensions] = task
            return try await task.value
        }
    }

    static let builds = Builds()

    @Test(
        "each README sample builds in a new package that depends on Appex by path",
        .timeLimit(.minutes(20)),
        arguments: samples
    )
    func builds(_ sample: Sample) async throws {
        let index = try #require(Self.samples.firstIndex { $0.package == sample.package && $0.line == sample.line })
        let package = try await Self.builds.package(forExtensions: Self.isExtension(sample))
        let errors = package.errors(of: index)
        var built = package.built(index)
        if errors.isEmpty && !built {
            // Another sample broke the package's build before this one was linked: build this
            // one alone, so that only the broken sample fails.
            let alone = try await swift(
                ["build", "--package-path", package.folder.path, "--product", SamplePackage.target(index)],
                timeout: 900
            )
            built = alone.status == 0 && package.built(index)
        }
        #expect(
            errors.isEmpty && built,
            "the sample at \(sample.testDescription) does not build:\n\(errors.isEmpty ? String(package.output.standardOutput.suffix(4000)) + String(package.output.standardError.suffix(2000)) : errors.joined(separator: "\n"))"
        )
        if Self.isExtension(sample) {
            // An extension's build compiles neither swift-crypto (BoringSSL), nor GRDB, nor the
            // bundle and plist code (its package holds only extensions' samples).
            for module in ["CCryptoBoringSSL", "Crypto", "GRDB", "AppexCore", "AppexStore"] {
                #expect(package.objects(module) == 0, "building an extension compiled \(module)")
            }
            #expect(
                package.objects(sample.products[0]) > 0,
                "no \(sample.products[0]) objects in \(package.folder.path): the check looks in the wrong place"
            )
            // Nor does it use Foundation beyond FoundationEssentials (on Linux that brings ICU and
            // CoreFoundation: 50 MB more in a static executable, 1.4 ms more at each launch).
            // Linked dynamically here, what it uses is an undefined symbol. `CGSize`'s initializer
            // is the one exception: `displaySize` (WidgetKit's API) makes one, and a release build
            // drops it with the code that is never called.
            let symbols = try await run(
                "/usr/bin/nm",
                ["-u", package.folder.appendingPathComponent(".build/debug/\(SamplePackage.target(index))").path],
                environment: ProcessInfo.processInfo.environment
            )
            let foundation = symbols.standardOutput.split(separator: "\n").filter {
                $0.contains("$s10Foundation") && !$0.contains("$s10Foundation6CGSizeV")
            }
            #expect(foundation.isEmpty, "the sample links Foundation itself: \(foundation.prefix(5))")
        }
    }
}
