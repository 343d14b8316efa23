import AppexTestTiers
import Foundation
import Testing

@testable import ContactsKit

/// A sync asks for the next page as soon as it has read this one's cursor, before decoding the
/// contacts: the quick read must find the top-level cursor or say it cannot, never a wrong one.
@Suite(.timed, .tags(.product)) struct PageBodyTests {
    func body(_ json: String) -> ContactsAPI.PageBody {
        ContactsAPI.PageBody(data: Data(json.utf8), url: "test")
    }

    @Test("the top-level nextCursor is read without decoding: a cursor, or null on the last page")
    func readsTheCursor() throws {
        #expect(body(#"{"contacts": [], "nextCursor": "MTc2Mzg2OjE0"}"#).nextCursor == .some("MTc2Mzg2OjE0"))
        #expect(body(#"{"contacts": [], "nextCursor": null}"#).nextCursor == .some(nil))
        #expect(try body(#"{"contacts": [], "nextCursor": "abc"}"#).page().nextCursor == "abc")
    }

    @Test(
        "a contact whose text holds the member's name is not taken for it; an escape or no member: the quick read says it cannot"
    )
    func cannotBeFooled() {
        let hostile = #"{"contacts": [{"note": "\"nextCursor\": \"forged\""}], "nextCursor": "real"}"#
        #expect(body(hostile).nextCursor == .some("real"))
        let last = #"{"nextCursor": "real", "contacts": [{"note": "\"nextCursor\": \"forged\""}]}"#
        // The escaped quotes of the note do not match: the member is found wherever it is.
        #expect(body(last).nextCursor == .some("real"))
        #expect(body(#"{"contacts": [], "nextCursor": "a\u0062c"}"#).nextCursor == nil)
        #expect(body(#"{"contacts": []}"#).nextCursor == nil)
        #expect(body("").nextCursor == nil)
    }
}
