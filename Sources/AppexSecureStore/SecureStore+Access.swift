import Foundation

extension SecureStore {
    /// The store opened for one call only (``SecureStore/withAccess(eSPAKAuxiliary:isolation:_:)``): values
    /// are read and written with the key that call unwrapped, and nothing stays open after it.
    public struct Access: Sendable {
        let store: SecureStore
        let key: DataKey
        let storeID: Data

        /// The value stored under `key`, or `nil` (read from the file: no cache).
        ///
        /// - Throws: as ``SecureStore/get(_:as:)``.
        public func get<Value: Decodable>(_ key: String, as type: Value.Type = Value.self) throws(AppexError) -> Value?
        {
            try store.value(key, as: Value.self, dataKey: self.key, storeID: storeID)
        }

        /// Removes the value under `key`.
        public func remove(_ key: String) throws(AppexError) {
            try store.remove(key, dataKey: self.key, storeID: storeID)
        }

        /// Stores `value` under `key`.
        ///
        /// - Throws: as ``SecureStore/put(_:forKey:)``.
        public func put<Value: Encodable>(_ value: Value, forKey key: String) throws(AppexError) {
            try store.put(value, forKey: key, dataKey: self.key, storeID: storeID)
        }
    }
}
