internal import AppexSystem
internal import AppexVocabulary

/// Asks the system's widget host to reload widgets' timelines, as WidgetKit's `WidgetCenter`.
///
/// ```swift
/// // In the containing app, after the data a widget shows has changed:
/// WidgetCenter.shared.reloadTimelines(ofKind: "RecentContacts")
/// ```
///
/// A request is a small file under `$APPEX_HOME/Widgets/Reloads/`, written whole and synced: a
/// running widget host acts on it at once, one that is not running at its next start. A
/// request from a process inside an `.app` bundle reloads that app's widgets only; from
/// anywhere else (a script, `appex widgets reload`), every widget of the kind.
public final class WidgetCenter: Sendable {
    /// The process's widget center.
    public static let shared = WidgetCenter()

    private init() {}

    /// Asks for new timelines of every widget of `kind` of this app. Never throws, as in
    /// WidgetKit: a request that cannot be written is reported on standard error (see
    /// ``requestReload(ofKind:)`` to handle it).
    public func reloadTimelines(ofKind kind: String) {
        report { () throws(AppexError) in try requestReload(ofKind: kind) }
    }

    /// Asks for new timelines of every widget of this app.
    public func reloadAllTimelines() {
        report { () throws(AppexError) in try requestReload(ofKind: nil) }
    }

    /// Asks for new timelines of the widgets of `kind` (every kind when `nil`) of this app.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `fileSystem` when the request cannot be written (the message
    ///   names the file).
    public func requestReload(ofKind kind: String?) throws(AppexError) {
        let variables = ProcessInfo.processInfo.environment
        let home = StateRoot.home(variables: variables, userHome: variables["HOME"] ?? "/")
        try Self.writeReloadRequest(
            WidgetReloadRequest(
                kind: kind,
                app: ProcessControl.containingApp(),
                requestedAt: Date().timeIntervalSince1970
            ),
            home: home
        )
    }

    /// Leaves `request` in the reloads folder under `home`, where a running widget host sees it
    /// at once (the widget host itself leaves one after a widget's intent ran).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `fileSystem`, naming the file.
    package static func writeReloadRequest(_ request: WidgetReloadRequest, home: String) throws(AppexError) {
        let kind = request.kind
        let folder = StateRoot.widgetReloads(home: home)
        // Sortable by time; unique by process and chance. (No `String(format:)`: it would link
        // all of Foundation into every widget.)
        let micros = UInt64(max(0, request.requestedAt * 1_000_000))
        let random = Self.hex(UInt64.random(in: 0...UInt64(UInt32.max)), width: 8)
        let name = "\(Self.hex(micros, width: 16))-\(ProcessControl.processIdentifier)-\(random).request"
        let path = folder + "/" + name
        do {
            try Syscalls.makeDirectories(folder, mode: 0o700)
            _ = try Syscalls.createFileAtomically(path, bytes: request.encoded(), mode: 0o600)
        } catch {
            throw AppexError(
                .fileSystem,
                "cannot write the widget reload request \(path)",
                context: AppexError.Context(path: path, widgetKind: kind),
                underlyingError: error
            )
        }
    }

    private func report(_ body: () throws(AppexError) -> Void) {
        do { try body() } catch {
            Terminal.writeStandardError("WidgetCenter: \(error)\n")
        }
    }

    /// `value` in lower-case hexadecimal, zero-padded to `width` digits.
    static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// A reload request as a file holds it: one line per field, so any tool can write one.
///
/// ```
/// kind=RecentContacts
/// app=/home/me/Applications/ContactsExplorer.app
/// requestedAt=1795000000.25
/// ```
package struct WidgetReloadRequest: Sendable, Hashable {
    /// The kind to reload; `nil` for every kind.
    package var kind: String?
    /// The app whose widgets to reload; `nil` for every app's.
    package var app: String?
    /// Seconds since 1970.
    package var requestedAt: Double
    /// Asked by the widget's person (a configuration set, an intent performed from the widget):
    /// taken from no reload budget, as WidgetKit does not count those. Written by the widget
    /// host, `by=person` in the file; the budget is a courtesy limit on apps, not a barrier (any
    /// process of the user can write this folder).
    package var byPerson: Bool

    package init(kind: String?, app: String?, requestedAt: Double, byPerson: Bool = false) {
        self.kind = kind
        self.app = app
        self.requestedAt = requestedAt
        self.byPerson = byPerson
    }

    package func encoded() -> [UInt8] {
        var lines: [String] = []
        if let kind { lines.append("kind=" + kind.filter { $0 != "\n" }) }
        if let app { lines.append("app=" + app.filter { $0 != "\n" }) }
        lines.append("requestedAt=\(requestedAt)")
        if byPerson { lines.append("by=person") }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Reads a request; `nil` when the bytes are not one (a file someone else left there).
    package init?(decoding bytes: [UInt8]) {
        guard bytes.count <= 8192, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var kind: String?
        var app: String?
        var requestedAt: Double?
        var byPerson = false
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { return nil }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "kind": kind = value
            case "app": app = value
            case "requestedAt": requestedAt = Double(value)
            case "by": byPerson = value == "person"
            default: continue
            }
        }
        guard let requestedAt, requestedAt.isFinite else { return nil }
        self.init(kind: kind, app: app, requestedAt: requestedAt, byPerson: byPerson)
    }
}
