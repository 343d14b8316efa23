/// The rules a passcode must follow, how many wrong attempts the store allows, and how long it
/// stays open while unused (SAP's `FUIPasscodePolicy`).
///
/// ```swift
/// var policy = PasscodePolicy()
/// policy.minLength = 6
/// policy.isDigitsOnly = true
/// policy.validate("12a4")  // [.minLength, .isDigitsOnly] broken, each with its words
/// ```
///
/// Wrong attempts are counted durably by ``SecureStore``: after ``freeAttempts`` of them, each
/// further attempt must wait (``firstDelay``, doubling with each failure, at most
/// ``maximumDelay``), and the failure that reaches ``retryLimit`` destroys the store's data key.
public struct PasscodePolicy: Sendable, Hashable {
    /// A rule a passcode can break.
    public enum Rule: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// ``PasscodePolicy/minLength``.
        case minLength
        /// ``PasscodePolicy/isDigitsOnly``.
        case isDigitsOnly
        /// ``PasscodePolicy/minUniqueCharacters``.
        case minUniqueCharacters
        /// ``PasscodePolicy/hasDigit``.
        case hasDigit
        /// ``PasscodePolicy/hasLower``.
        case hasLower
        /// ``PasscodePolicy/hasUpper``.
        case hasUpper
        /// ``PasscodePolicy/hasSpecial``.
        case hasSpecial

        /// The rule's name, as the policy's property spells it.
        public var description: String { rawValue }
    }

    /// A broken rule, and what it asked for in words.
    public struct Violation: Sendable, Hashable, CustomStringConvertible {
        /// The rule broken.
        public let rule: Rule
        /// What the rule asks for ("at least 8 characters").
        public let message: String

        /// `rule: message`.
        public var description: String { "\(rule): \(message)" }
    }

    /// The fewest characters (grapheme clusters) a passcode may have.
    public var minLength: Int = 8
    /// Whether a passcode must be digits only (a PIN).
    public var isDigitsOnly: Bool = false
    /// The fewest different characters a passcode must use.
    public var minUniqueCharacters: Int = 0
    /// Whether a passcode must contain a digit.
    public var hasDigit: Bool = false
    /// Whether a passcode must contain a lowercase letter.
    public var hasLower: Bool = false
    /// Whether a passcode must contain an uppercase letter.
    public var hasUpper: Bool = false
    /// Whether a passcode must contain a character that is neither a letter nor a digit.
    public var hasSpecial: Bool = false
    /// Wrong attempts in a row after which the data key is destroyed (`passcode-retry-limit`).
    public var retryLimit: Int = 10
    /// How long an opened store stays open while unused; then it locks.
    public var lockTimeout: Duration = .seconds(300)
    /// Wrong attempts in a row that cost no wait.
    public var freeAttempts: Int = 3
    /// The wait after the first failure beyond ``freeAttempts``; each later failure doubles it.
    public var firstDelay: Duration = .seconds(1)
    /// The longest wait between attempts.
    public var maximumDelay: Duration = .seconds(15 * 60)

    /// The default policy: 8 characters or more, 10 attempts, 5 minutes open while unused.
    public init() {}

    /// Every rule `passcode` breaks, in the order of ``Rule``; empty when it follows them all.
    public func validate(_ passcode: String) -> [Violation] {
        var broken: [Violation] = []
        let characters = Array(passcode)
        if characters.count < minLength {
            broken.append(
                Violation(rule: .minLength, message: "at least \(minLength) characters (it has \(characters.count))")
            )
        }
        if isDigitsOnly && !characters.allSatisfy(Self.isDigit) {
            broken.append(Violation(rule: .isDigitsOnly, message: "digits only (0-9)"))
        }
        let unique = Set(characters).count
        if unique < minUniqueCharacters {
            broken.append(
                Violation(
                    rule: .minUniqueCharacters,
                    message: "at least \(minUniqueCharacters) different characters (it has \(unique))"
                )
            )
        }
        if hasDigit && !characters.contains(where: Self.isDigit) {
            broken.append(Violation(rule: .hasDigit, message: "a digit"))
        }
        if hasLower && !characters.contains(where: \.isLowercase) {
            broken.append(Violation(rule: .hasLower, message: "a lowercase letter"))
        }
        if hasUpper && !characters.contains(where: \.isUppercase) {
            broken.append(Violation(rule: .hasUpper, message: "an uppercase letter"))
        }
        if hasSpecial && !characters.contains(where: { !$0.isLetter && !$0.isNumber }) {
            broken.append(Violation(rule: .hasSpecial, message: "a character that is neither a letter nor a digit"))
        }
        return broken
    }

    /// The wait before the next attempt after `failures` wrong attempts in a row.
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > freeAttempts else { return .zero }
        let doublings = min(failures - freeAttempts - 1, 40)
        let seconds = Double(firstDelay.components.seconds) + Double(firstDelay.components.attoseconds) / 1e18
        let wait = seconds * Double(1 << doublings)
        let maximum =
            Double(maximumDelay.components.seconds) + Double(maximumDelay.components.attoseconds) / 1e18
        return .milliseconds(Int64((min(wait, maximum) * 1000).rounded(.up)))
    }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isWholeNumber
    }
}
