/// Where each id's last line is, for reading a folder back (`NDJSONSinkReadBack`): every id of
/// the folder is held at once, so an id in the upper-case UUID form (what healthrouter writes,
/// nearly every id) is held as its 16 bytes rather than as a string: about 40 bytes an id
/// instead of 140 (4.7 million samples took 550 MB so). Any other id, a lower-case UUID
/// included, is held as it is written: ids are told apart byte for byte, as before.
struct NDJSONLastLines {
    struct Position: Equatable {
        var file: Int32
        var line: Int32
    }

    private struct UUIDKey: Hashable {
        var high: UInt64
        var low: UInt64
    }

    private var byUUID: [UUIDKey: Position] = [:]
    private var byText: [String: Position] = [:]

    subscript(id: String) -> Position? {
        get {
            if let key = Self.uuidKey(id) { return byUUID[key] }
            return byText[id]
        }
        set {
            if let key = Self.uuidKey(id) { byUUID[key] = newValue } else { byText[id] = newValue }
        }
    }

    /// `id` as 16 bytes when it is a UUID written in upper case (`8-4-4-4-12` hex digits), else nil.
    private static func uuidKey(_ id: String) -> UUIDKey? {
        guard id.utf8.count == 36 else { return nil }
        var id = id
        id.makeContiguousUTF8()
        return id.utf8.withContiguousStorageIfAvailable { bytes -> UUIDKey? in
            var high: UInt64 = 0, low: UInt64 = 0, digits = 0
            for (offset, byte) in bytes.enumerated() {
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let nibble: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt64(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                if digits < 16 { high = high << 4 | nibble } else { low = low << 4 | nibble }
                digits += 1
            }
            return UUIDKey(high: high, low: low)
        } ?? nil
    }
}
