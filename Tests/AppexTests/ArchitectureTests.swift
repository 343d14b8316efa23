import Foundation
import Testing

/// docs/ARCHITECTURE.md is the newcomer's map: its module table must list exactly the modules
/// Package.swift declares (test fixtures and the seeds' targets aside).
@Suite(.timed) struct ArchitectureTests {
    @Test("ARCHITECTURE.md's module table names exactly the library, tool and plugin targets of Package.swift")
    func modulesMatchPackage() throws {
        let manifest = try String(contentsOfFile: packageRoot + "/Package.swift", encoding: .utf8)
        let declaration = try Regex(#"\.(?:target|executableTarget|plugin)\(\s*name:\s*"([A-Za-z0-9-]+)""#)
        let declared = Set(
            manifest.matches(of: declaration).compactMap { $0.output[1].substring.map(String.init) }
                .filter { !$0.hasPrefix("AppexFixture") && !$0.hasPrefix("CAppexFixture") && !$0.hasPrefix("Seed") }
        )
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
