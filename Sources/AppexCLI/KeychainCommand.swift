import AppexCommandCore
import AppexCore
import AppexStore
import ArgumentParser
import Foundation

/// `appex keychain`: the shared keychain's generic-password items from the shell, like macOS
/// `security add-generic-password` / `find-generic-password -w` / `delete-generic-password`.
struct Keychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychain",
        abstract: "Add, find and delete the shared keychain's generic-password items.",
        discussion:
            "Acts with the owner's authority unless --as names a bundle, whose signed entitlements then decide. --group is a keychain access group.",
        subcommands: [KeychainAdd.self, KeychainFind.self, KeychainDelete.self]
    )
}

/// Which item, and on whose authority.
struct ItemOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The keychain access group (default: the bundle's first).", valueName: "GROUP"))
    var group: String?

    @Option(help: ArgumentHelp("The item's service.", valueName: "SERVICE"))
    var service: String

    @Option(help: ArgumentHelp("The item's account.", valueName: "ACCOUNT"))
    var account: String

    @Option(
        name: .customLong("as"),
        help: ArgumentHelp("Act with this signed bundle's entitlements.", valueName: "BUNDLE")
    )
    var bundle: String?

    /// Runs `body` on the keychain; a refusal is reported and fails with exit code 1.
    func run<Result>(_ body: (SharedKeychain) throws(AppexError) -> Result) throws -> Result {
        try reporting { () throws(AppexError) in
            let context = try bundle.map { path throws(AppexError) in try ProcessContext(bundleAt: path) } ?? .owner
            return try body(SharedKeychain(context: context))
        }
    }
}

struct KeychainAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an item (the secret from --password, else standard input)."
    )
    @OptionGroup var item: ItemOptions
    @Option(
        help: ArgumentHelp(
            "The secret (visible to other users in the process list: prefer standard input).",
            valueName: "PASSWORD"
        )
    )
    var password: String?
    @Option(help: ArgumentHelp("A label to show.", valueName: "LABEL")) var label: String?
    @Flag(name: .customLong("update"), help: "Replace the item's secret if it exists (security's -U).") var replace =
        false

    func run() throws {
        let secret: Data
        if let password {
            secret = Data(password.utf8)
        } else {
            var read = FileHandle.standardInput.readDataToEndOfFile()
            if read.last == UInt8(ascii: "\n") { read.removeLast() }
            secret = read
        }
        let replace = replace
        try item.run { keychain throws(AppexError) in
            if replace {
                try keychain.set(
                    secret,
                    service: item.service,
                    account: item.account,
                    label: label,
                    accessGroup: item.group
                )
            } else {
                try keychain.add(
                    secret,
                    service: item.service,
                    account: item.account,
                    label: label,
                    accessGroup: item.group
                )
            }
        }
    }
}

struct KeychainFind: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Print an item's secret alone (security's -w), or its attributes as JSON."
    )
    @OptionGroup var item: ItemOptions
    @Flag(help: "Print the attributes as JSON instead of the secret.") var attributes = false

    func run() throws {
        let found = try item.run { keychain throws(AppexError) in
            try keychain.item(service: item.service, account: item.account, accessGroup: item.group)
        }
        guard let found else {
            throw fail(
                AppexError(
                    .itemNotFound,
                    "no item for service \(item.service), account \(item.account)\(item.group.map { " in access group \($0)" } ?? "")",
                    context: AppexError.Context(group: item.group)
                )
            )
        }
        if attributes {
            var shown: [String: PropertyListValue] = [
                "service": .string(found.service), "account": .string(found.account),
                "accessGroup": .string(found.accessGroup),
                "created": .string(ISO8601DateFormatter().string(from: found.creationDate)),
                "modified": .string(ISO8601DateFormatter().string(from: found.modificationDate)),
            ]
            if let label = found.label { shown["label"] = .string(label) }
            try printJSON(shown)
        } else {
            FileHandle.standardOutput.write(found.data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}

struct KeychainDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an item.")
    @OptionGroup var item: ItemOptions

    func run() throws {
        try item.run { keychain throws(AppexError) in
            try keychain.delete(service: item.service, account: item.account, accessGroup: item.group)
        }
    }
}
