package import AppexVocabulary
package import GRDB

extension Row {
    /// The value of `column` as a `Value`, or — when the file holds something else there (a row
    /// written outside Appex: any process of a group can write its files) — a `corrupt-value`
    /// error naming the file and the column. GRDB's subscripts would stop the process instead.
    package func field<Value: DatabaseValueConvertible>(
        _ column: String,
        as type: Value.Type = Value.self,
        in path: String
    ) throws(AppexError) -> Value {
        do {
            return try decode(Value.self, forColumn: column)
        } catch {
            throw AppexError(
                .corruptValue,
                "\(path) holds a row whose \(column) is not a \(Value.self): it was written outside Appex",
                context: AppexError.Context(path: path, key: column),
                underlyingError: error
            )
        }
    }
}
