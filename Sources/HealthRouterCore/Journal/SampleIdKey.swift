/// How the journal stores a sample id as a key: the canonical upper-case UUID form
/// (every HealthKit UUID, every fingerprint id) as its 16 bytes, anything else as text.
/// SQLite never finds a BLOB equal to a TEXT, so the two forms cannot collide, and the
/// 16-byte form keeps the id indexes small (the import's hottest B-trees).
enum SampleIdKey {
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

        /// Binds the key at `index`.
        func bind(_ statement: SQLiteStatement, _ index: Int32) {
            switch self {
            case .uuid(let high, let low): withUnsafeBytes(of: (high, low)) { statement.bind(index, blob: $0) }
            case .text(let id): statement.bind(index, id)
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
        guard utf8.count == 36 else { return false }
        var byteIndex = 0
        var i = 0
        while i < 36 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard utf8[i] == UInt8(ascii: "-") else { return false }
                i += 1
                continue
            }
            guard let high = hexValue(utf8[i]), let low = hexValue(utf8[i + 1]) else { return false }
            out[byteIndex] = high << 4 | low
            byteIndex += 1
            i += 2
        }
        return byteIndex == 16
    }

    @inline(__always)
    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
