import AppexCommandCore
import AppexCore
import AppexStore
import ArgumentParser
import Foundation

/// `appex defaults`: an app group's shared defaults from the shell, like macOS `defaults`.
struct Defaults: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defaults",
        abstract: "Read, write and delete an app group's shared defaults.",
        discussion:
            "Acts with the owner's authority unless --as names a bundle, whose signed entitlements then decide.",
        subcommands: [DefaultsRead.self, DefaultsWrite.self, DefaultsDelete.self]
    )
}

/// Which suite, and on whose authority.
struct SuiteOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The app group.", valueName: "GROUP"))
    var group: String

    @Option(help: ArgumentHelp("The suite (default: the group's own).", valueName: "SUITE"))
    var suite: String?

    @Option(
        name: .customLong("as"),
        help: ArgumentHelp("Act with this signed bundle's entitlements.", valueName: "BUNDLE")
    )
    var bundle: String?

    /// Opens the suite, or reports why not and fails with exit code 1.
    func open() throws -> SharedDefaults {
        try reporting { () throws(AppexError) in
            let context = try bundle.map { path throws(AppexError) in try ProcessContext(bundleAt: path) } ?? .owner
            return try SharedDefaults(suiteName: suite, group: AppGroup(group, context: context))
        }
    }
}

struct DefaultsRead: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print a key's value alone, or the whole suite as JSON."
    )
    @OptionGroup var suite: SuiteOptions
    @Argument(help: "The key.") var key: String?

    func run() throws {
        let defaults = try suite.open()
        guard let key else {
            // Every readable key; each unreadable one is reported (its corrupt-value error), and
            // the exit status says so.
            try printJSON(defaults.dictionaryRepresentation())
            var failed = false
            for key in defaults.unreadableKeys.keys.sorted() {
                do throws(AppexError) { _ = try defaults.value(forKey: key) } catch {
                    report(error)
                    failed = true
                }
            }
            if failed { throw ExitCode.failure }
            return
        }
        let stored = try reporting { () throws(AppexError) in try defaults.value(forKey: key) }
        guard let value = stored else {
            throw fail(
                AppexError(
                    .notFound,
                    "the key \(key) does not exist in \(defaults.path)",
                    context: AppexError.Context(path: defaults.path, key: key)
                )
            )
        }
        do { print(try Self.text(of: value)) } catch {
            throw fail(AppexError(.coding, "cannot print the value of \(key)", underlyingError: error))
        }
    }

    /// A value as `defaults read` prints it: strings and numbers bare, Booleans 1/0, others as JSON.
    static func text(of value: PropertyListValue) throws -> String {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .boolean(let flag): return flag ? "1" : "0"
        case .date(let date): return ISO8601DateFormatter().string(from: date)
        case .data(let data): return data.map { String(format: "%02x", $0) }.joined()
        case .array, .dictionary:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        }
    }
}

struct DefaultsWrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Set a key (a string unless a type flag says otherwise)."
    )
    @OptionGroup var suite: SuiteOptions
    @Argument(help: "The key.") var key: String
    @Argument(help: "The value.") var value: String
    @Flag(name: .customLong("int"), help: "The value is an integer.") var integer = false
    @Flag(name: .customLong("bool"), help: "The value is a Boolean (true/false/yes/no/1/0).") var boolean = false
    @Flag(name: .customLong("float"), help: "The value is a floating-point number.") var real = false

    func run() throws {
        let stored: PropertyListValue
        if integer {
            guard let number = Int(value) else { throw ValidationError("\(value) is not an integer") }
            stored = .integer(number)
        } else if boolean {
            switch value.lowercased() {
            case "true", "yes", "1": stored = .boolean(true)
            case "false", "no", "0": stored = .boolean(false)
            default: throw ValidationError("\(value) is not a Boolean (true/false/yes/no/1/0)")
            }
        } else if real {
            guard let number = Double(value) else { throw ValidationError("\(value) is not a number") }
            stored = .real(number)
        } else {
            stored = .string(value)
        }
        let defaults = try suite.open()
        try reporting { () throws(AppexError) in try defaults.set(stored, forKey: key) }
    }
}

struct DefaultsDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Remove a key.")
    @OptionGroup var suite: SuiteOptions
    @Argument(help: "The key.") var key: String

    func run() throws {
        let defaults = try suite.open()
        try reporting { () throws(AppexError) in try defaults.removeObject(forKey: key) }
    }
}
