import AppexSQLite
import Foundation
import GRDB

// Values: sealed under the data key, found by an HMAC of their key, their keys sealed too.
extension SecureStore {
    /// Stores `value` (JSON-encoded, sealed) under `key`, replacing what was there.
    ///
    /// - Throws: ``AppexError`` `storeLocked` when the store is not open; `coding` when the
    ///   value cannot be encoded; `storage`.
    public func put<Value: Encodable>(_ value: Value, forKey key: String) throws(AppexError) {
        let dataKey = try self.dataKey()
        let plaintext: Data
        do { plaintext = try JSONEncoder().encode(value) } catch {
            throw AppexError(
                .coding,
                "cannot encode the value for key \(key)",
                context: context.errorContext(path: path, key: key),
                underlyingError: error
            )
        }
        let identifier = dataKey.identifier(of: key)
        let sealedValue = try DataKey.seal(plaintext, under: dataKey.values, binding: identifier)
        let sealedName = try DataKey.seal(Data(key.utf8), under: dataKey.names, binding: Data("name".utf8) + identifier)
        try write("store a value") { db in
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO item (id, name, value) VALUES (?, ?, ?)")
                .execute(arguments: [identifier, sealedName, sealedValue])
        }
    }

    /// The value stored under `key`, or `nil`.
    ///
    /// Repeated reads of a value no process changed are answered from memory: every commit
    /// changes the WAL-index header, which is compared on each read.
    ///
    /// - Throws: ``AppexError`` `storeLocked`; `corruptValue` when the stored bytes fail
    ///   authentication or do not decode as `Value`; `storage`.
    public func get<Value: Decodable>(_ key: String, as type: Value.Type = Value.self) throws(AppexError) -> Value? {
        try touch()
        let header = walIndex?.header()
        let cacheKey = CacheKey(key: key, type: ObjectIdentifier(Value.self))
        if let header,
            let cached = cache.withLock({ $0.header == header ? $0.values[cacheKey] : nil }) as? Cached<Value>
        {
            return cached.value
        }
        let dataKey = try self.dataKey()
        let identifier = dataKey.identifier(of: key)
        let sealed = try read("read a value") { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM item WHERE id = ?"), arguments: [identifier])
        }
        var value: Value?
        if let sealed {
            guard let plaintext = DataKey.open(sealed, under: dataKey.values, binding: identifier) else {
                throw AppexError(
                    .corruptValue,
                    "the value for key \(key) in \(path) fails authentication: it was changed outside Appex",
                    context: context.errorContext(path: path, key: key)
                )
            }
            do { value = try JSONDecoder().decode(Value.self, from: plaintext) } catch {
                throw AppexError(
                    .corruptValue,
                    "the value for key \(key) is not a \(Value.self)",
                    context: context.errorContext(path: path, key: key),
                    underlyingError: error
                )
            }
        }
        if let header, !(Value.self is AnyObject.Type) {
            let cached = Cached(value)
            cache.withLock { cache in
                if cache.header != header { cache = ValueCache(header: header) }
                cache.values[cacheKey] = cached
            }
        }
        return value
    }

    /// Removes the value under `key` (its bytes are overwritten in the file); nothing when
    /// there is none.
    public func remove(_ key: String) throws(AppexError) {
        let identifier = try dataKey().identifier(of: key)
        try write("remove a value") { db in
            try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [identifier])
        }
    }

    /// Every key with a value, sorted.
    public func keys() throws(AppexError) -> [String] {
        let dataKey = try self.dataKey()
        let rows = try read("list the keys") { db in try Row.fetchAll(db, sql: "SELECT id, name FROM item") }
        var keys: [String] = []
        for row in rows {
            let identifier: Data = row["id"]
            let sealed: Data = row["name"]
            guard let name = DataKey.open(sealed, under: dataKey.names, binding: Data("name".utf8) + identifier),
                let key = String(data: name, encoding: .utf8)
            else {
                throw AppexError(
                    .corruptValue,
                    "an item of \(path) fails authentication: it was changed outside Appex",
                    context: context.errorContext(path: path)
                )
            }
            keys.append(key)
        }
        return keys.sorted()
    }
}
