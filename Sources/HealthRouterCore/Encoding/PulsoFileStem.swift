/// The file stem Pulso's reference server gives a type key (pulso-protocol.md §1.9):
/// `<stem>.ndjson`, every character outside `[A-Za-z0-9_-]` replaced by `_` (per character, as
/// Python's `re.sub` does); `unknown` when empty or when it would be the tombstone file
/// (`_deleted`); a stem longer than `maximumLength` is cut, with a digest of the key. The ndjson
/// sink names its files so, and `/latest` its keys.
public enum PulsoFileStem {
    /// The file of tombstones.
    public static let deleted = "_deleted"

    public static func of(key: String) -> String {
        func isKept(_ value: UInt32) -> Bool {
            (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
                || value == 0x5F || value == 0x2D
        }
        let stem = key.utf8.allSatisfy({ isKept(UInt32($0)) }) ? key
            : String(String.UnicodeScalarView(key.unicodeScalars.map { isKept($0.value) ? $0 : "_" }))
        if stem.utf8.count > maximumLength {
            // A file name has at most 255 bytes: a longer key (a type no producer would send) keeps
            // its start and gets a digest of the whole, so it stays one file of its own.
            let digest = UUIDv5.string(name: key).replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
            return String(stem.prefix(maximumLength - 17)) + "-" + digest
        }
        return stem.isEmpty || stem == deleted ? "unknown" : stem
    }

    /// The longest stem (in bytes; every character of a stem is ASCII): `<stem>.ndjson` and the
    /// sink's temporary names beside it stay well within a file name's 255 bytes.
    public static let maximumLength = 200
}
