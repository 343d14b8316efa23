import AppexTestTiers
import Foundation
import Testing

/// The seed targets hold their documents' code: every line of each listing, in order, with only
/// the lines Examples/README.md's tables name written otherwise. The documents are kept as they
/// were taken in Tests/Seeds/Documents (seed 000's code is Objective-C; its target is the same
/// code in Swift, so it has no listing to compare).
@Suite(.timed) struct SeedListingTests {
    struct Seed: Sendable, CustomTestStringConvertible {
        var document: String
        var target: String
        /// Each listing: the text it starts with and the text that follows it in the document.
        var listings: [(start: String, end: String)]
        /// The tables' lines: as printed, as written.
        var changes: [(printed: String, written: String)]
        var testDescription: String { target }
    }

    static let seeds: [Seed] = [
        Seed(
            document: "001_2b820e329e7dd24a.txt",
            target: "Seed001/Seed001.swift",
            listings: [
                ("struct MyAppExtension: AppExtension {", "\n```"),
                ("struct ExampleConfiguration<E:ExampleExtension>", "\n```"),
                ("public extension MyTextTransformerExtension {", "\n```"),
            ],
            changes: [("name \"HostAppFeature\"", "name: \"HostAppFeature\"")]
        ),
        Seed(
            document: "002_dec1c05e99fc4395.txt",
            target: "Seed002/Seed002.swift",
            listings: [
                ("private func configuredStoreManagerStep()", "\n\nSet the SPAK"),
                ("public func initiateDataRequest", "\n\nAdding Widgets"),
                ("public var backgroundSteps", "\n\nopen class"),
                ("open class AuxiliaryCommunicationStep", "\n\nNote"),
            ],
            changes: [
                ("        ...\n", "        // ...\n"),
                (
                    "let eSPAKAuxiliary = //fetch the eSPAKAuxiliary",
                    "let eSPAKAuxiliary = try fetchESPAKAuxiliary() //fetch the eSPAKAuxiliary"
                ),
            ]
        ),
        Seed(
            document: "003_0c64cc172d083c75.txt",
            target: "Seed003/Seed003.swift",
            listings: [
                ("// Shared storage backed by App-Group UserDefaults", "\n\nUse the storage"),
                ("let haapiAccessor = HaapiAccessorBuilder", "\n\nWhen DCR"),
                ("let dcrConfig = DCRConfiguration(", "\n\nThe host app handles"),
            ],
            changes: [
                (
                    "UserDefaults(suiteName: \"group.com.example.app\")!",
                    "GroupDefaults(suiteName: \"group.com.example.app\")!"
                )
            ]
        ),
        Seed(
            document: "004_f3774f83c343cbe3.txt",
            target: "Seed004/main.swift",
            listings: [
                ("// Get one of the app's defined", "The ExtensionKit framework"),
                ("let monitor = AppExtensionPoint.Monitor", "In addition to reporting"),
            ],
            changes: [
                (
                    "let monitor = AppExtensionPoint.Monitor(appExtensionPoint:someExtensionPoint)",
                    "let monitor = try await AppExtensionPoint.Monitor(appExtensionPoint:someExtensionPoint)"
                )
            ]
        ),
    ]

    @Test("each seed target holds its document's listings, line for line, but for the tables' lines", arguments: seeds)
    func listingsAreVerbatim(_ seed: Seed) throws {
        let folder = packageRoot + "/Tests/Seeds/"
        let document = try String(contentsOfFile: folder + "Documents/" + seed.document, encoding: .utf8)
        let target = try String(contentsOfFile: folder + seed.target, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var used = Set<Int>()
        for (start, end) in seed.listings {
            let begin = try #require(document.range(of: start), "\(seed.document) has no listing starting \(start)")
            let finish = try #require(
                document.range(of: end, range: begin.upperBound..<document.endIndex),
                "\(seed.document)'s listing \(start) has no end \(end)"
            )
            var listing = String(document[begin.lowerBound..<finish.lowerBound])
            for (index, change) in seed.changes.enumerated() where listing.contains(change.printed) {
                listing = listing.replacingOccurrences(of: change.printed, with: change.written)
                used.insert(index)
            }
            // Each line, in order, somewhere after the one before (the target adds its own lines).
            var at = 0
            for line in listing.split(separator: "\n", omittingEmptySubsequences: true) {
                guard let found = target[at...].firstIndex(of: String(line)) else {
                    Issue.record("\(seed.target) lacks, after its line \(at + 1), the document's line: \(line)")
                    break
                }
                at = found + 1
            }
        }
        #expect(used.count == seed.changes.count, "a table line of \(seed.target) is in none of its listings")
    }
}
