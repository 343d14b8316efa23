import AppexTestTiers
import Foundation
import Testing

@testable import ContactsKit

/// The store orders contacts by the moment of their last change, read by hand from the server's
/// form; it must agree with Foundation's ISO 8601 parser, and refuse what is not that form.
@Suite(.timed, .tags(.product)) struct MomentTests {
    @Test(
        "the hand-read moment of the server's form equals Foundation's, across leap days, years and before 1970",
        arguments: [
            "2026-11-23T04:22:06.123456Z", "2024-02-29T23:59:59.999999Z", "2000-03-01T00:00:00.000000Z",
            "1970-01-01T00:00:00.000000Z", "1969-12-31T23:59:59.500000Z", "1900-03-01T12:00:00Z",
            "2100-12-31T00:00:00.25Z", "2026-11-23T04:22:06.1234567890123456789012Z",
        ]
    )
    func agreesWithFoundation(text: String) throws {
        // Foundation reads at most nanoseconds too.
        let foundation = try Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains("."))
            .parse(text.count > 30 ? String(text.prefix(29)) + "Z" : text)
        let ours = try #require(ContactsStore.utcMoment(text))
        #expect(
            abs(ours - foundation.timeIntervalSince1970) < 0.000_01,
            "\(text): \(ours) vs \(foundation.timeIntervalSince1970)"
        )
    }

    @Test(
        "anything else is left to Foundation's parser (or sorts last)",
        arguments: [
            "2026-11-23 04:22:06Z", "2026-13-01T00:00:00Z", "2026-11-23T04:22:06+01:00", "", "2026-11-23T04:22:06.Z",
        ]
    )
    func refusesOtherForms(text: String) {
        #expect(ContactsStore.utcMoment(text) == nil)
    }
}
