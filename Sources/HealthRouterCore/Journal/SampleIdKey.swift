/// How the journal stores a sample id as a key: the canonical upper-case UUID form
/// (every HealthKit UUID, every fingerprint id) as its 16 bytes, anything else as text.
/// SQLite never finds a BLOB equal to a TEXT, so the two forms cannot collide, and the
/// 16-byte form keeps the id indexes small (the import's hottest B-trees).
public enum SampleIdKey {
    /// An id in its key form, parsed once for several statements.
    enum Key {
        case uuid(UInt64, UInt64)
        case text(String)

        init(_ id: String) {
            var copy = id
            var bytes = (UInt64(0), UInt64(0))
            let parsed = copy.withUTF8 { utf8 in
                withUnsafeMutableBytes(of: &bytes) { raw in SampleIdKey.parseCanonicalUUID(utf8, into: raw) }
            }
            self = parsed ? .uuid(bytes.0, bytes.1) : .text(id)
        }

        /// Binds the key at `index`, through `arena` when given (see its contract), else as a copy.
        func bind(_ statement: SQLiteStatement, _ index: Int32, through arena: SQLiteBindingArena? = nil) {
            switch self {
            case .uuid(let high, let low):
                withUnsafeBytes(of: (high, low)) {
                    if let arena { arena.bind(statement, index, blob: $0) } else { statement.bind(index, blob: $0) }
                }
            case .text(let id):
                if let arena { arena.bind(statement, index, id) } else { statement.bind(index, id) }
            }
        }
    }

    /// Binds `id` at `index` in its key form.
    static func bind(_ statement: SQLiteStatement, _ index: Int32, _ id: String) {
        Key(id).bind(statement, index)
    }

    /// Reads a key column back as the id string.
    static func read(_ statement: SQLiteStatement, _ column: Int32) -> String? {
        if statement.columnIsText(column) { return statement.string(column) }
        guard let blob = statement.blob(column), blob.count == 16 else { return nil }
        return UUIDv5.format(blob)
    }

    /// Parses `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` with upper-case hex digits only.
    private static func parseCanonicalUUID(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard utf8.count == 36, let base = utf8.baseAddress,
              base[8] == UInt8(ascii: "-"), base[13] == UInt8(ascii: "-"),
              base[18] == UInt8(ascii: "-"), base[23] == UInt8(ascii: "-") else { return false }
        return hexDigitValues.withUnsafeBufferPointer { values in
            // Any byte that is not a digit has bit 4 set in its value: one test for the 32 digits.
            var invalid: UInt8 = 0
            for (byteIndex, offset) in digitOffsets.enumerated() {
                let high = values[Int(base[offset])], low = values[Int(base[offset + 1])]
                invalid |= high | low
                out[byteIndex] = high << 4 | low
            }
            return invalid & 0x10 == 0
        }
    }

    /// `id` in the canonical upper-case form when it is a UUID written in lower or mixed case
    /// (`7a00…` → `7A00…`), else `id` itself: a producer that writes its UUIDs in lower case and
    /// deletes them in upper case (or the other way) names one sample. Upper-case ids, the
    /// usual case, are returned without a copy.
    public static func canonicalCase(_ id: String) -> String {
        let utf8 = id.utf8
        guard utf8.count == 36, utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") }) else { return id }
        let upper = id.uppercased()
        var copy = upper
        var bytes = (UInt64(0), UInt64(0))
        let isUUID = copy.withUTF8 { utf8 in withUnsafeMutableBytes(of: &bytes) { parseCanonicalUUID(utf8, into: $0) } }
        return isUUID ? upper : id
    }

    /// Where each of the 16 bytes' two hex digits start in the canonical form.
    private static let digitOffsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]

    /// Each byte's value as an upper-case hex digit, 0x10 for any other byte.
    private static let hexDigitValues: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0x10
        }
    }
}
