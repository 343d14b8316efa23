// A process that uses an app group's shared defaults, for the multi-process tests.
//
//     AppexFixtureStore increment GROUP KEY COUNT   — COUNT atomic increments of KEY
//     AppexFixtureStore write-loop GROUP KEY        — writes 1, 2, 3, ... to KEY forever,
//                                                     printing each value once it is committed
//     AppexFixtureStore sharing-loop GROUP BUNDLE TEAM — as BUNDLE of TEAM (entitled to GROUP): writes k0...k19
//                                                     once, then forever increments "counter" in
//                                                     its defaults (printing each committed value)
//                                                     and turns data sharing on and off
//     AppexFixtureStore sharing-read GROUP BUNDLE TEAM KEY... — as BUNDLE of TEAM (entitled to GROUP):
//                                                     prints its data-sharing helper's settings
//                                                     (name=, enabled=) and KEY=VALUE for each KEY
//                                                     in the defaults they name (nothing: absent)
//     AppexFixtureStore keychain-add GROUP PREFIX COUNT — adds COUNT items PREFIX-0... to access
//                                                     group GROUP, then updates each once
//     AppexFixtureStore keychain-loop GROUP ACCOUNT — stores secret-N+1, secret-N+2, ... as the
//                                                     item (loop, ACCOUNT) forever (N: the number
//                                                     stored), printing each number once committed
//
// Acts with the owner's authority; APPEX_HOME says where state lives.
import AppexCore
import AppexStore
import Foundation

@MainActor func run() throws -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count >= 4 else {
        FileHandle.standardError.write(Data("usage: AppexFixtureStore increment|write-loop GROUP KEY [COUNT]\n".utf8))
        return 2
    }
    if arguments[1].hasPrefix("keychain-") { return try keychain(arguments) }
    if arguments[1] == "sharing-loop", arguments.count >= 5 {
        return try sharingLoop(group: arguments[2], bundle: arguments[3], team: arguments[4])
    }
    if arguments[1] == "sharing-read", arguments.count >= 5 {
        return try sharingRead(
            group: arguments[2],
            bundle: arguments[3],
            team: arguments[4],
            keys: Array(arguments.dropFirst(5))
        )
    }
    let defaults = try SharedDefaults(group: AppGroup(arguments[2], context: .owner))
    let key = arguments[3]
    switch arguments[1] {
    case "increment":
        let count = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
        for _ in 0..<count {
            try defaults.update(key) { old in
                if case .integer(let value) = old { return .integer(value + 1) }
                return .integer(1)
            }
        }
        return 0
    case "write-loop":
        var value = defaults.integer(forKey: key)
        while true {
            value += 1
            try defaults.set(value, forKey: key)
            // Straight to the descriptor: a value printed is a value committed, even under kill -9.
            FileHandle.standardOutput.write(Data("\(value)\n".utf8))
        }
    default:
        return 2
    }
}

/// The keychain commands.
func keychain(_ arguments: [String]) throws -> Int32 {
    let keychain = try SharedKeychain(context: .owner)
    let group = arguments[2]
    switch arguments[1] {
    case "keychain-add":
        let count = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
        for index in 0..<count {
            try keychain.add(
                Data("first-\(index)".utf8),
                service: "svc",
                account: "\(arguments[3])-\(index)",
                label: "item \(index)",
                accessGroup: group
            )
        }
        for index in 0..<count {
            try keychain.update(
                Data("\(arguments[3])-\(index)-secret".utf8),
                service: "svc",
                account: "\(arguments[3])-\(index)",
                accessGroup: group
            )
        }
        return 0
    case "keychain-loop":
        // Continues from what is stored, so every run's numbers are above every earlier run's.
        let stored = try keychain.item(service: "loop", account: arguments[3], accessGroup: group)?.string
        var number = stored.flatMap { Int($0.dropFirst("secret-".count)) } ?? 0
        while true {
            number += 1
            try keychain.set(Data("secret-\(number)".utf8), service: "loop", account: arguments[3], accessGroup: group)
            FileHandle.standardOutput.write(Data("\(number)\n".utf8))
        }
    default:
        return 2
    }
}

/// Toggles data sharing forever while writing, to be killed at a random moment.
func sharingLoop(group: String, bundle: String, team: String) throws -> Int32 {
    let context = ProcessContext(
        bundleIdentifier: bundle,
        team: TeamIdentifier(rawValue: team),
        entitlements: Entitlements(applicationGroups: [group], keychainAccessGroups: [])
    )
    let sharing = try DataSharing(context: context)
    let first = try sharing.defaults()
    for index in 0..<20 where first.object(forKey: "k\(index)") == nil {
        try first.set("v\(index)", forKey: "k\(index)")
    }
    var round = 0
    while true {
        round += 1
        let defaults = try sharing.defaults()
        let value = try defaults.update("counter") { old in
            if case .integer(let value) = old { return .integer(value + 1) }
            return .integer(1)
        }
        if case .integer(let value) = value { FileHandle.standardOutput.write(Data("\(value)\n".utf8)) }
        if round % 2 == 1 { try sharing.enableAppGroup(group) } else { try sharing.disableAppGroup() }
    }
}

/// Reads, as a new process of `bundle`, what its data-sharing helper says and the defaults it names.
func sharingRead(group: String, bundle: String, team: String, keys: [String]) throws -> Int32 {
    let context = ProcessContext(
        bundleIdentifier: bundle,
        team: TeamIdentifier(rawValue: team),
        entitlements: Entitlements(applicationGroups: [group], keychainAccessGroups: [])
    )
    let helper = try DataSharingHelper(context: context)
    var lines = ["name=\(helper.appGroupName ?? "")", "enabled=\(helper.appGroupEnabled)"]
    let defaults = try helper.defaults.suite()
    lines.append("suite=\(defaults.group?.identifier ?? "own")")
    for key in keys {
        if let value = defaults.string(forKey: key) { lines.append("\(key)=\(value)") }
    }
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    return 0
}

do { exit(try run()) } catch {
    FileHandle.standardError.write(Data("AppexFixtureStore: \(error)\n".utf8))
    exit(1)
}
