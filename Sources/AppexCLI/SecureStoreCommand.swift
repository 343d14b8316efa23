import AppexCommandCore
import AppexCore
import AppexSecureStore
import AppexStore
import ArgumentParser
import Foundation

/// `appex securestore`: a host app's passcode-protected store, as its owner looks after it.
struct SecureStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "securestore",
        abstract: "Show a host app's secure store, or change its passcode.",
        discussion:
            "Acts as the host app (--host), whose store lives under APPEX_HOME/Containers/<bundle id>/Library/SecureStore. Nothing secret is printed.",
        subcommands: [SecureStoreStatus.self, SecureStoreChangePasscode.self]
    )
}

/// Which host's store.
struct SecureStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The host app bundle.", valueName: "HOST.app"))
    var host: String

    @Option(help: ArgumentHelp("The store's name.", valueName: "NAME"))
    var name = "SecureStore"

    /// The host's store.
    func store() throws(AppexError) -> SecureStore {
        var configuration = SecureStore.Configuration()
        configuration.name = name
        return try SecureStore(context: ProcessContext(bundleAt: host), configuration: configuration)
    }
}

struct SecureStoreStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the store is set up, how it opens, its paired key's generation and the wrong attempts."
    )
    @OptionGroup var options: SecureStoreOptions

    func run() throws {
        let (store, status) = try reporting { () throws(AppexError) in
            let store = try options.store()
            return (store, try store.status())
        }
        print("store: \(store.path)")
        print("state: \(status.state)")
        guard status.state != .uninitialized else { return }
        print("opens with: \(status.hasPasscode ? "the passcode" : "the device key (no passcode)")")
        print(
            "paired key: generation \(status.pairedKeyGeneration)\(status.isRenewingPairedKey ? " (a renewal is pending: the next open finishes it)" : "")"
        )
        print("wrong attempts in a row: \(status.failedAttempts)")
        if let next = status.nextAttempt { print("next attempt after: \(ISO8601DateFormatter().string(from: next))") }
    }
}

struct SecureStoreChangePasscode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-passcode",
        abstract: "Change the store's passcode; its extensions get a new paired key share.",
        discussion:
            "Reads the current passcode, then the new one, a line each on standard input (a passcode on the command line would be visible to other users). --from-none: the store has no passcode (no first line); --to-none: turn the passcode off (no second line)."
    )
    @OptionGroup var options: SecureStoreOptions
    @Flag(help: "The store has no passcode now.") var fromNone = false
    @Flag(help: "Turn the passcode off (the weaker device-key mode).") var toNone = false

    func run() throws {
        var lines = (String(data: FileHandle.standardInput.readDataToEndOfFile(), encoding: .utf8) ?? "")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init).makeIterator()
        let old = fromNone ? nil : lines.next()
        let new = toNone ? nil : lines.next()
        if (!fromNone && (old ?? "").isEmpty) || (!toNone && (new ?? "").isEmpty) {
            throw fail(
                AppexError(.invalidValue, "give the current passcode and the new one, a line each, on standard input")
            )
        }
        try reporting { () throws(AppexError) in
            try options.store().changePasscode(from: old, to: new)
        }
        print(
            toNone ? "passcode turned off; extensions get a new share" : "passcode changed; extensions get a new share"
        )
    }
}

/// `appex aux`: an app group's queue of auxiliary data requests.
struct Aux: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aux",
        abstract: "List or purge an app group's auxiliary data requests.",
        discussion: "Acts with the owner's authority. Neither what a request asks nor what was answered is shown.",
        subcommands: [AuxList.self, AuxPurge.self]
    )
}

/// Which group's queue.
struct AuxOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The app group.", valueName: "GROUP"))
    var group: String

    func requests() throws(AppexError) -> AuxiliaryDataRequestManager {
        AuxiliaryDataRequestManager(dataStore: try AuxiliaryDataStore(lookingAfter: AppGroup(group, context: .owner)))
    }
}

struct AuxList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the requests: id, kind, state, times taken, created, expires."
    )
    @OptionGroup var options: AuxOptions

    func run() throws {
        let statuses = try reporting { () throws(AppexError) in try options.requests().listDataRequests() }
        let format = ISO8601DateFormatter()
        if statuses.isEmpty { print("no data requests in app group \(options.group)") }
        for status in statuses {
            let state: String
            if let failure = status.failure {
                state = "failed (\(failure))"
            } else if status.completionTime != nil {
                state = "answered"
            } else if let lease = status.leaseExpiry, lease > Date() {
                state = "being served"
            } else {
                state = "pending"
            }
            print(
                "\(status.id)\t\(status.kind)\t\(state)\ttaken \(status.leases)×\tcreated \(format.string(from: status.creationTime))\texpires \(format.string(from: status.expiry))"
            )
        }
    }
}

struct AuxPurge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Delete the requests (--answered: only the answered ones)."
    )
    @OptionGroup var options: AuxOptions
    @Flag(help: "Only the answered requests.") var answered = false

    func run() throws {
        let count = try reporting { () throws(AppexError) in
            try options.requests().purgeDataRequests(answeredOnly: answered)
        }
        print("purged \(count) data request\(count == 1 ? "" : "s") from app group \(options.group)")
    }
}
