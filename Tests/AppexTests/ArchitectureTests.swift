import AppexTestTiers
import Foundation
import Testing

/// docs/ARCHITECTURE.md is the newcomer's map: its module table must list exactly the modules
/// Package.swift declares (the targets whose code is under Tests/, Examples/ or Benchmarks/ aside: fixtures,
/// seeds, samples, test support and the product).
@Suite(.timed) struct ArchitectureTests {
    @Test("ARCHITECTURE.md's module table names exactly the library, tool and plugin targets of Package.swift")
    func modulesMatchPackage() throws {
        let manifest = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)
        let declaration = try Regex(#"\.(?:target|executableTarget|plugin)\(\s*name:\s*"([A-Za-z0-9-]+)""#)
        // Each declaration up to the next: a target whose path is under Tests/ or Examples/ is not a module.
        let matches = manifest.matches(of: declaration)
        var declared: Set<String> = []
        for (index, match) in matches.enumerated() {
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : manifest.endIndex
            let text = manifest[match.range.lowerBound..<end]
            // A plugin a target uses (`.plugin(name: …, package: …)`) is no declaration.
            if manifest[match.range.upperBound...].hasPrefix(", package:") { continue }
            guard !text.contains(#"path: "Tests/"#), !text.contains(#"path: "Examples/"#),
                !text.contains(#"path: "Benchmarks/"#)
            else { continue }
            if let name = match.output[1].substring { declared.insert(String(name)) }
        }
        let map = try String(contentsOfFile: packageRoot + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let section =
            try #require(map.components(separatedBy: "\n## Modules\n").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let row = try Regex(#"(?m)^\| `([A-Za-z0-9-]+)` \|"#)
        let listed = Set(section.matches(of: row).compactMap { $0.output[1].substring.map(String.init) })
        #expect(declared.count > 10, "the manifest's targets were not found: \(declared)")
        #expect(
            declared == listed,
            "in Package.swift, not in ARCHITECTURE.md: \(declared.subtracting(listed).sorted()); in ARCHITECTURE.md, not in Package.swift: \(listed.subtracting(declared).sorted())"
        )
    }
}
