import HealthRouterCore

/// UUIDs as health4ai's reader wants them: canonical lower case. Any other text becomes a stable
/// UUIDv5 of itself, so a user name or a non-UUID sample id still gets a `uuid`.
enum PostgresUserId {
    /// `text` lower-cased when it is a UUID, else its UUIDv5.
    static func uuid(_ text: String) -> String {
        isUUID(text) ? text.lowercased() : UUIDv5.string(name: text).lowercased()
    }

    /// The stored user id for `text`.
    static func normalized(_ text: String) -> String { uuid(text) }

    static func isUUID(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        var copy = text
        return copy.withUTF8 { bytes in
            for index in 0..<36 {
                let byte = bytes[index]
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    if byte != UInt8(ascii: "-") { return false }
                } else if !((48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)) {
                    return false
                }
            }
            return true
        }
    }
}
