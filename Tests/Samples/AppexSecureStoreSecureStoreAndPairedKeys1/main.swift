import AppexSecureStore
import AppexStore
import Foundation

struct Tokens: Codable { var access: String; var refresh: String }
struct RecentContacts: Codable, Hashable { var count: Int }

// The host app: its store, behind the passcode the user typed.
let host = try ProcessContext(bundleAt: "/opt/Applications/ContactsExplorer.app")
let store = try SecureStore(context: host)
if try store.state == .uninitialized {
    try store.onboard(passcode: "correct horse 7")  // checked against PasscodePolicy
} else {
    try store.open(passcode: "correct horse 7")  // wrong: wrong-passcode, then waits, then erase
}
try store.put(Tokens(access: "at", refresh: "rt"), forKey: "tokens")
store.lock()

// The widget (its own process): it asks, with its share; it never sees the passcode.
let widget = try ProcessContext.current()
let security = try AuxiliarySecurityManager(hostBundleIdentifier: "com.myapp.MyApp", context: widget)
let requests = try AuxiliaryDataRequestManager(
    group: AppGroup("group.com.myapp.MyApp", context: widget),
    security: security  // the queue is sealed under the key the host published
)
let asked = try requests.putDataRequest(
    AuxiliaryDataRequest(info: RecentContacts(count: 4), eSPAKAux: security.getESPAKAuxiliary(), kind: "recent")
)

// The host, in a background run (or serveDataRequestsUntilCancelled while it runs): each
// request opens the store with the widget's share and the host's own.
let hostRequests = try store.dataRequests(inGroup: "group.com.myapp.MyApp")
try await hostRequests.serveDataRequests { claim throws(AppexError) in
    // Opened with the widget's share for this answer alone: the store stays as it was.
    try await store.withAccess(eSPAKAuxiliary: claim.eSPAKAux) { access throws(AppexError) in
        let tokens: Tokens? = try access.get("tokens")
        return Data((tokens?.access ?? "none").utf8)  // what the widget asked for, fetched with them
    }
}

// The widget, woken by the answer (lossless: it reads the queue, not a signal).
let answered = try await requests.completion(of: asked, within: .seconds(5))
print(answered.response.map { String(decoding: $0, as: UTF8.self) } ?? answered.failure ?? "")