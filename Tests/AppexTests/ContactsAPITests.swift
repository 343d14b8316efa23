import AppexTestTiers
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test server's contacts API (issue 13), which ContactsExplorer syncs and its widget reads:
/// over HTTP against the real server, each test with a user of its own.
@Suite(.timed) struct ContactsAPITests {
    init() async throws { try await OAuthServer.start() }

    @Test("a full listing comes page by page through the cursor: every contact once, oldest change first")
    func paging() async throws {
        let user = try await ContactsServer.newUser(contacts: 250)
        let token = try await ContactsServer.token(user)
        let (contacts, pages) = try await ContactsServer.all(token: token, limit: 100)
        #expect(pages == 3)
        #expect(contacts.count == 250)
        #expect(Set(contacts.map(\.id)).count == 250)
        #expect(contacts.map(\.modified) == contacts.map(\.modified).sorted())
    }

    @Test("modifiedSince returns what changed since: a PATCH moves the contact to the end, with its change")
    func incremental() async throws {
        let user = try await ContactsServer.newUser(contacts: 20)
        let token = try await ContactsServer.token(user)
        let before = try await ContactsServer.all(token: token).contacts
        let last = try #require(before.last)
        let target = before[5]
        let patched = try await ContactsServer.call(
            "api/contacts/\(target.id)",
            method: "PATCH",
            token: token,
            body: ["note": "moved"]
        )
        #expect(patched.status == 200)
        let changed = try await ContactsServer.all(token: token, since: last.modified).contacts
        // At or after the last change seen: the last one again (same moment) and the patched one.
        #expect(changed.map(\.id) == [last.id, target.id])
        #expect(changed.last?.note == "moved")
        let one = try await ContactsServer.call("api/contacts/\(target.id)", token: token)
        #expect(try JSONDecoder().decode(ContactsServer.Contact.self, from: one.body) == changed.last)
    }

    @Test(
        "ids=: the named contacts of the user in one answer, in the order asked; another user's left out; bad ids refused"
    )
    func byIdentifiers() async throws {
        let user = try await ContactsServer.newUser(contacts: 10)
        let token = try await ContactsServer.token(user)
        let all = try await ContactsServer.all(token: token).contacts
        let other = try await ContactsServer.newUser(contacts: 1)
        let theirs = try #require(
            try await ContactsServer.all(token: try await ContactsServer.token(other)).contacts.first
        )
        let asked = [all[7].id, all[2].id, theirs.id, all[5].id]
        let answer = try await ContactsServer.call(
            "api/contacts",
            query: [URLQueryItem(name: "ids", value: asked.joined(separator: ","))],
            token: token
        )
        #expect(answer.status == 200)
        let page = try JSONDecoder().decode(ContactsServer.Page.self, from: answer.body)
        #expect(page.contacts == [all[7], all[2], all[5]])
        let bad = try await ContactsServer.call(
            "api/contacts",
            query: [URLQueryItem(name: "ids", value: "1,x")],
            token: token
        )
        #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("ids"))
    }

    @Test("names in several scripts, markup and control characters come back as they were written")
    func names() async throws {
        let user = try await ContactsServer.newUser(contacts: 23, hostile: true)
        let token = try await ContactsServer.token(user)
        let names = try await ContactsServer.all(token: token).contacts.map(\.name)
        #expect(names[0] == "<script>alert('x')</script> Mallory")
        #expect(names[1] == "Eve \u{202E}redaeh\u{202C} \u{1B}[31mRED\u{1B}[0m")
        #expect(names[2] == "\"Quotes\" & <b>Bold</b>\u{07}")
        let scripts: [ClosedRange<UInt32>] = [0x0370...0x03FF, 0x0400...0x04FF, 0x0600...0x06FF, 0x05D0...0x05EA]
        for range in scripts {
            #expect(names.contains { $0.unicodeScalars.contains { range.contains($0.value) } }, "no name in \(range)")
        }
    }

    @Test(
        "without the contacts scope: 403 insufficient_scope; without a token: 401 invalid_token; bad input: 400 or 404 by name"
    )
    func refusals() async throws {
        let user = try await ContactsServer.newUser(contacts: 1)
        let readOnly = try await ContactsServer.token(user, scope: "read")
        let forbidden = try await ContactsServer.call("api/contacts", token: readOnly)
        #expect(forbidden.status == 403)
        #expect(
            forbidden.response.value(forHTTPHeaderField: "WWW-Authenticate")?.contains("insufficient_scope") == true
        )
        let anonymous = try await ContactsServer.call("api/contacts", token: nil)
        #expect(anonymous.status == 401)
        let token = try await ContactsServer.token(user)
        let badLimit = try await ContactsServer.call(
            "api/contacts",
            query: [URLQueryItem(name: "limit", value: "0")],
            token: token
        )
        #expect(badLimit.status == 400 && String(decoding: badLimit.body, as: UTF8.self).contains("limit"))
        let badCursor = try await ContactsServer.call(
            "api/contacts",
            query: [URLQueryItem(name: "cursor", value: "garbage")],
            token: token
        )
        #expect(badCursor.status == 400)
        // A number that is no moment: refused by name, not a server error.
        for huge in ["inf", "1e400"] {
            let badSince = try await ContactsServer.call(
                "api/contacts",
                query: [URLQueryItem(name: "modifiedSince", value: huge)],
                token: token
            )
            #expect(badSince.status == 400 && String(decoding: badSince.body, as: UTF8.self).contains("modifiedSince"))
        }
        let other = try await ContactsServer.newUser(contacts: 1)
        let theirs = try #require(
            try await ContactsServer.all(token: try await ContactsServer.token(other)).contacts.first
        )
        #expect(try await ContactsServer.call("api/contacts/\(theirs.id)", token: token).status == 404)
        let badPatch = try await ContactsServer.call(
            "api/contacts/\(theirs.id)",
            method: "PATCH",
            token: token,
            body: ["id": "1"]
        )
        #expect(badPatch.status == 400)
    }

    @Test("the server counts contacts requests by kind, status and user")
    func counted() async throws {
        let user = try await ContactsServer.newUser(contacts: 3)
        let token = try await ContactsServer.token(user)
        let contacts = try await ContactsServer.all(token: token).contacts
        _ = try await ContactsServer.call("api/contacts/\(contacts[0].id)", token: token)
        _ = try await ContactsServer.call(
            "api/contacts/\(contacts[0].id)",
            method: "PATCH",
            token: token,
            body: ["name": "N"]
        )
        let stats = try await OAuthServer.stats()
        #expect(stats["\(user.username).contacts.list.200"] == 1)
        #expect(stats["\(user.username).contacts.get.200"] == 1)
        #expect(stats["\(user.username).contacts.patch.200"] == 1)
    }
}
