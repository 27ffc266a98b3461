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

extension KeyedDecodingContainer {
    /// The duration at `key` after which a sink deletes data: raw rows folded into summaries,
    /// chunks dropped. Refused under one day, with `deletes` in the message (`raw rows older than
    /// this are folded into daily summaries and deleted`): a shorter one is almost always a slip
    /// (`30m` is 30 minutes, not months) that would delete nearly everything at once.
    public func decodeDeletionAge(forKey key: Key, deletes: String) throws -> ConfigDuration {
        let age = try decode(ConfigDuration.self, forKey: key)
        guard age.seconds < 86_400 else { return age }
        // Shown in its shortest form: minutes only when it was a whole number of them (`30m`).
        let minutes = "\(age)".hasSuffix("m") ? "; `m` means minutes: write months as days or weeks, e.g. 180d or 26w" : ""
        throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription:
            "must be at least 1d, is \(age) (\(deletes))" + minutes)
    }

    /// As `decodeDeletionAge`, nil when `key` is absent.
    public func decodeDeletionAgeIfPresent(forKey key: Key, deletes: String) throws -> ConfigDuration? {
        try contains(key) ? decodeDeletionAge(forKey: key, deletes: deletes) : nil
    }
}
