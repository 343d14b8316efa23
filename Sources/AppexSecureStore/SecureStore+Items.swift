import AppexSQLite
import Foundation
import GRDB

// Values: sealed under the data key, found by an HMAC of their key, their keys sealed too.
// Each read or write that touches the file checks, in its transaction, that the file still holds
// the store that was opened (another process may have erased it or set it up again).
extension SecureStore {
    /// Stores `value` (JSON-encoded, sealed) under `key`, replacing what was there.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `storeLocked` when the store is not open (or was erased or set
    ///   up again by another process); `coding` when the value cannot be encoded; `storage`.
    public func put<Value: Encodable>(_ value: Value, forKey key: String) throws(AppexError) {
        let opened = try openedState()
        try put(value, forKey: key, dataKey: opened.dataKey, storeID: opened.storeID)
    }

    /// Stores `value` with `dataKey`, if the file still holds the store `storeID`.
    func put<Value: Encodable>(_ value: Value, forKey key: String, dataKey: DataKey, storeID: Data) throws(AppexError) {
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
            try checkSameStore(db, storeID)
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO item (id, name, value) VALUES (?, ?, ?)")
                .execute(arguments: [identifier, sealedName, sealedValue])
        }
    }

    /// The value stored under `key`, or `nil`.
    ///
    /// Repeated reads of a value no process changed are answered from memory, decoded once:
    /// every commit changes the WAL-index header, which is compared on each read. Values of class
    /// types are not kept; a value type holding a class instance is, and callers then share that
    /// instance (do not change it).
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `storeLocked`; `corruptValue` when the stored bytes fail
    ///   authentication or do not decode as `Value`; `storage`.
    public func get<Value: Decodable>(_ key: String, as type: Value.Type = Value.self) throws(AppexError) -> Value? {
        let epoch = try touch()
        let header = walIndex?.header()
        let cacheKey = CacheKey(key: key, type: ObjectIdentifier(Value.self))
        if let header,
            let cached = cache.withLock({ $0.header == header ? $0.values[cacheKey] : nil }) as? Cached<Value>
        {
            return cached.value
        }
        let opened = try openedState()
        let value = try value(key, as: Value.self, dataKey: opened.dataKey, storeID: opened.storeID)
        if let header, !(Value.self is AnyObject.Type) {
            let cached = Cached(value)
            // Only while the same opening holds: a lock() meanwhile must not find it cached after.
            self.opened.withLock { current in
                guard current?.epoch == epoch else { return }
                cache.withLock { cache in
                    if cache.header != header { cache = ValueCache(header: header) }
                    cache.values[cacheKey] = cached
                }
            }
        }
        return value
    }

    /// The value under `key` read from the file with `dataKey`, if it still holds the store
    /// `storeID` (no cache).
    func value<Value: Decodable>(
        _ key: String,
        as type: Value.Type,
        dataKey: DataKey,
        storeID: Data
    ) throws(AppexError) -> Value? {
        let identifier = dataKey.identifier(of: key)
        let sealed = try read("read a value") { db in
            try checkSameStore(db, storeID)
            return try Data.fetchOne(
                db.cachedStatement(sql: "SELECT value FROM item WHERE id = ?"),
                arguments: [identifier]
            )
        }
        guard let sealed else { return nil }
        guard let plaintext = DataKey.open(sealed, under: dataKey.values, binding: identifier) else {
            throw AppexError(
                .corruptValue,
                "the value for key \(key) in \(path) fails authentication: it was changed outside Appex",
                context: context.errorContext(path: path, key: key)
            )
        }
        do { return try JSONDecoder().decode(Value.self, from: plaintext) } catch {
            throw AppexError(
                .corruptValue,
                "the value for key \(key) is not a \(Value.self)",
                context: context.errorContext(path: path, key: key),
                underlyingError: error
            )
        }
    }

    /// Removes the value under `key` (its bytes are overwritten in the file); nothing when
    /// there is none.
    public func remove(_ key: String) throws(AppexError) {
        let opened = try openedState()
        try remove(key, dataKey: opened.dataKey, storeID: opened.storeID)
    }

    /// Removes the value under `key` with `dataKey`, if the file still holds the store `storeID`.
    func remove(_ key: String, dataKey: DataKey, storeID: Data) throws(AppexError) {
        let identifier = dataKey.identifier(of: key)
        try write("remove a value") { db in
            try checkSameStore(db, storeID)
            try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [identifier])
        }
    }

    /// Every key with a value, sorted.
    public func keys() throws(AppexError) -> [String] {
        let opened = try openedState()
        let rows = try read("list the keys") { db in
            try checkSameStore(db, opened.storeID)
            return try Row.fetchAll(db, sql: "SELECT id, name FROM item")
        }
        var keys: [String] = []
        for row in rows {
            let identifier = try row.field("id", as: Data.self, in: path)
            let sealed = try row.field("name", as: Data.self, in: path)
            guard
                let name = DataKey.open(sealed, under: opened.dataKey.names, binding: Data("name".utf8) + identifier),
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
