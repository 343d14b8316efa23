import AppexTestTiers
import AppexTesting
import ContactsKit
import Foundation
import Synchronization
import Testing

/// The sync ContactsExplorer runs (issue 13), against the real test server and a real SQLite
/// store: complete, incremental, resumable without loss or duplicates, and the widget's order.
@Suite(.timed, .tags(.product)) struct ContactsSyncTests {
    /// Removed with the test.
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory(prefix: "contacts-sync") }

    func store() throws -> ContactsStore { try ContactsStore(path: folder.appending("contacts.sqlite")) }

    @Test("a full sync stores every contact once, page by page; the next asks only from the newest change")
    func fullThenIncremental() async throws {
        let server = try await TestServer.user(contacts: 450)
        let api = ContactsAPI(server: server.url, send: server.send)
        let store = try store()
        var sync = ContactsSync(api: api, store: store)
        sync.pageSize = 200
        let first = try await sync.run()
        #expect(first == ContactsSync.Report(received: 450, pages: 3, resumed: false))
        #expect(try store.count() == 450)
        #expect(Set(try store.contacts().map(\.id)).count == 450)
        let since = try #require(try store.syncState().since)
        // Nothing changed: only the newest change comes again (the API answers "at or after").
        let quiet = try await sync.run()
        #expect(quiet.received == 1 && quiet.pages == 1)
        let contacts = try store.contacts()
        try await server.patch(contacts[10].id, "name", "Renamed Ten")
        try await server.patch(contacts[20].id, "note", "changed")
        let changed = try await sync.run()
        #expect(changed.received == 3)
        #expect(try store.contact(id: contacts[10].id).name == "Renamed Ten")
        #expect(try store.contact(id: contacts[20].id).note == "changed")
        #expect(try store.count() == 450)
        #expect(try #require(try store.syncState().since) > since)
    }

    @Test("a sync that fails between pages resumes where it stopped: no contact lost, none twice")
    func resumes() async throws {
        let server = try await TestServer.user(contacts: 330)
        let calls = Mutex(0)
        // The connection drops after two pages.
        let failing = ContactsAPI(server: server.url) { request in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call > 2 { throw URLError(.networkConnectionLost) }
            return try await server.send(request)
        }
        let store = try store()
        var broken = ContactsSync(api: failing, store: store)
        broken.pageSize = 100
        await #expect(throws: URLError.self) { _ = try await broken.run() }
        #expect(try store.count() == 200)
        #expect(try store.syncState().resume != nil)
        #expect(try store.syncState().since == nil)
        var sync = ContactsSync(api: ContactsAPI(server: server.url, send: server.send), store: store)
        sync.pageSize = 100
        let report = try await sync.run()
        #expect(report.resumed && report.received == 130 && report.pages == 2)
        #expect(try store.count() == 330)
        #expect(try store.syncState().resume == nil)
    }

    @Test("the widget's order: the most recently used or changed first; names kept as written")
    func recent() async throws {
        let server = try await TestServer.user(contacts: 30, hostile: true)
        let store = try store()
        _ = try await ContactsSync(api: ContactsAPI(server: server.url, send: server.send), store: store).run()
        let all = try store.contacts()
        #expect(all.contains { $0.name == "<script>alert('x')</script> Mallory" })
        #expect(all.contains { $0.name.contains("\u{1B}[31m") })
        let newest = try store.recent(limit: 3)
        #expect(newest.count == 3)
        #expect(newest.map(\.modified) == newest.map(\.modified).sorted(by: >))
        let oldest = try #require(all.min { $0.modified < $1.modified })
        try store.markUsed(id: oldest.id)
        #expect(try store.recent(limit: 3).first?.id == oldest.id)
        #expect(throws: ContactsError.self) { try store.markUsed(id: "no-such-contact") }
    }
}
