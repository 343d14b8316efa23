/// The text of a `Text` written as a literal, as in SwiftUI: interpolations may be dates in a
/// style (`"Updated \(date, style: .relative)"`), other texts, formatted values, or anything
/// printable. On Linux nothing is looked up in a strings table: the key is the text.
public struct LocalizedStringKey: ExpressibleByStringInterpolation, Sendable, Hashable {
    package var runs: [TextRun]

    /// The key `value`, shown as written.
    public init(_ value: String) { runs = [TextRun(content: .verbatim(value))] }

    /// A key from a literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// A key from an interpolated literal.
    public init(stringInterpolation: StringInterpolation) { runs = stringInterpolation.runs }

    /// The parts of an interpolated literal, as runs of text.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        package var runs: [TextRun] = []

        /// Room for the literal's parts.
        public init(literalCapacity: Int, interpolationCount: Int) {
            runs.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// Fixed characters.
        public mutating func appendLiteral(_ literal: String) { appendVerbatim(literal) }

        /// A value, as it prints.
        public mutating func appendInterpolation<T>(_ value: T) { appendVerbatim(String(describing: value)) }

        /// A date in a style, formatted when the widget is drawn (so it stays current).
        public mutating func appendInterpolation(_ date: Date, style: Text.DateStyle) {
            runs.append(TextRun(content: .date(date.timeIntervalSince1970, style.name)))
        }

        /// Another text, with its styles.
        public mutating func appendInterpolation(_ text: Text) { runs += text.runs }

        /// A value formatted with `format` (`\(count, format: .number)`).
        public mutating func appendInterpolation<F: FormatStyle>(_ value: F.FormatInput, format: F)
        where F.FormatOutput == String {
            appendVerbatim(format.format(value))
        }

        private mutating func appendVerbatim(_ string: String) {
            guard !string.isEmpty else { return }
            if let last = runs.last, case .verbatim(let previous) = last.content, last.style.isEmpty {
                runs[runs.count - 1] = TextRun(content: .verbatim(previous + string))
            } else {
                runs.append(TextRun(content: .verbatim(string)))
            }
        }
    }
}

extension Text {
    /// A text showing `key` (a literal, interpolations included). The table, bundle and comment
    /// are accepted and ignored on Linux: the key is the text.
    public init(
        _ key: LocalizedStringKey,
        tableName: String? = nil,
        bundle: Bundle? = nil,
        comment: StaticString? = nil
    ) {
        self.init(runs: key.runs.isEmpty ? [TextRun(content: .verbatim(""))] : key.runs)
    }

    /// A text showing `input` formatted with `format` (`Text(count, format: .number)`).
    public init<F: FormatStyle>(_ input: F.FormatInput, format: F) where F.FormatOutput == String {
        self.init(verbatim: format.format(input))
    }
}
