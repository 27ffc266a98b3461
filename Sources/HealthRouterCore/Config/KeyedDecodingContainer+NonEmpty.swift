extension KeyedDecodingContainer {
    /// The string at `key` (`defaultValue` when the key is absent and a default is given),
    /// refused when empty with "must not be empty", then `purpose` when given (`the SQLite file
    /// to write, e.g. …`): for a plugin's path, folder, schema or user whose empty value would
    /// mean something else (SQLite opens "" as a temporary database).
    public func decodeNonEmptyString(forKey key: Key, default defaultValue: String? = nil,
                                     purpose: String? = nil) throws -> String {
        let value = try defaultValue.map { try decodeIfPresent(String.self, forKey: key) ?? $0 }
            ?? decode(String.self, forKey: key)
        guard value.isEmpty else { return value }
        throw DecodingError.dataCorruptedError(forKey: key, in: self,
                                               debugDescription: "must not be empty" + (purpose.map { ": " + $0 } ?? ""))
    }
}
