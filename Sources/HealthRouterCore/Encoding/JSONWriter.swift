/// A fast, byte-level JSON writer for compact output (no spaces, no slash escaping,
/// UTF-8 unescaped), as Pulso writes its NDJSON. The caller keeps the structure
/// well formed; the writer places the commas.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// True right after `{`, `[` or a key: the next value needs no comma.
    private var atStart = true
    /// Whether U+0000 in keys, strings and `raw` JSON (its `\u0000` escapes) is written as U+FFFD,
    /// for PostgreSQL's jsonb, which refuses `\u0000`; off by default (JSON holds it as `\u0000`).
    public var replacesNUL = false
    /// Whether a U+0000 was written as U+FFFD (`replacesNUL`) since the last `reset()`.
    public private(set) var replacedNUL = false

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The output as a String.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        atStart = true
        replacedNUL = false
    }

    private mutating func separate() {
        if !atStart { bytes.append(UInt8(ascii: ",")) }
        atStart = false
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); atStart = true }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); atStart = false }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); atStart = true }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); atStart = false }

    /// Writes an object key; the next call writes its value.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        atStart = true
    }

    public mutating func string(_ value: String) { separate(); appendQuoted(value) }

    /// A timestamp as a string: ISO 8601 in its own offset, as `TimestampFormatter.iso8601`
    /// writes it, except that an unknown offset is written `-00:00` (RFC 3339's "offset unknown")
    /// rather than `Z`. No escaping is needed, and no `String` is made.
    public mutating func timestamp(_ value: Timestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        TimestampFormatter.appendISO8601(value, to: &bytes)
        if value.utcOffsetSeconds == nil, bytes.last == UInt8(ascii: "Z") {
            bytes.removeLast()
            bytes.append(contentsOf: Self.unknownOffset)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let unknownOffset: [UInt8] = Array("-00:00".utf8)
    public mutating func bool(_ value: Bool) { separate(); bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes) }
    public mutating func null() { separate(); bytes.append(contentsOf: Self.nullBytes) }
    public mutating func int(_ value: Int64) { separate(); bytes.append(contentsOf: String(value).utf8) }

    /// Writes a number the way Pulso's app does: integral values without a fraction
    /// (`171`, not `171.0`), others in Swift's shortest round-tripping form.
    /// Non-finite numbers, which JSON cannot hold, are written as null.
    public mutating func number(_ value: Double) {
        separate()
        guard value.isFinite else { bytes.append(contentsOf: Self.nullBytes); return }
        if value == value.rounded(), abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// Writes a metadata value: a string, number or boolean, or an additive field's JSON as it is.
    public mutating func value(_ value: MetadataValue) {
        switch value {
        case .string(let text): string(text)
        case .number(let number): self.number(number)
        case .bool(let flag): bool(flag)
        case .json(let text): raw(Array(text.utf8))
        }
    }

    /// Writes `value` whole, an object's keys in their order, or, when `sortingKeys`, sorted by
    /// their bytes with a key given twice written once, its last value (as a dictionary keeps it).
    public mutating func value(_ value: JSONValue, sortingKeys: Bool = false) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let items):
            beginArray()
            for item in items { self.value(item, sortingKeys: sortingKeys) }
            endArray()
        case .object(let pairs):
            beginObject()
            var written = pairs
            if sortingKeys {
                let lastValues = Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                written = lastValues.map { (key: $0.key, value: $0.value) }
                    .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            }
            for pair in written {
                key(pair.key)
                self.value(pair.value, sortingKeys: sortingKeys)
            }
            endObject()
        }
    }

    /// Appends already-encoded JSON (a value) as is; with `replacesNUL`, its `\u0000` escapes as U+FFFD.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        guard replacesNUL, json.contains(UInt8(ascii: "\\")) else { bytes.append(contentsOf: json); return }
        // In JSON a backslash is found only in a string, where it starts an escape of two bytes
        // or, with `u`, of six: `\\u0000` is a backslash and `u0000`, no NUL.
        let zero = UInt8(ascii: "0")
        var index = 0
        while index < json.count {
            guard json[index] == UInt8(ascii: "\\"), index + 1 < json.count else { bytes.append(json[index]); index += 1; continue }
            if json[index + 1] == UInt8(ascii: "u"), index + 5 < json.count,
               json[index + 2] == zero, json[index + 3] == zero, json[index + 4] == zero, json[index + 5] == zero {
                bytes.append(contentsOf: Self.replacementCharacter)
                replacedNUL = true
                index += 6
            } else {
                bytes.append(json[index]); bytes.append(json[index + 1])
                index += 2
            }
        }
    }

    /// Writes `key` and a string value, or nothing when the value is nil.
    public mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name); string(value)
    }

    /// Writes `key` and a number value, or nothing when the value is nil.
    public mutating func field(_ name: String, _ value: Double?) {
        guard let value else { return }
        key(name); number(value)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hex = Array("0123456789abcdef".utf8)
    /// U+FFFD in UTF-8, written for U+0000 with `replacesNUL`.
    private static let replacementCharacter: [UInt8] = [0xEF, 0xBF, 0xBD]

    private mutating func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var copy = value
        copy.withUTF8 { utf8 in
            // Copy runs that need no escape in bulk: most strings are one such run. Eight bytes at
            // a time while none of them needs one (no control character, quote or backslash).
            var runStart = 0
            var clean = 0
            if let base = utf8.baseAddress {
                let raw = UnsafeRawPointer(base)
                while clean + 8 <= utf8.count, !Self.needsEscape(raw.loadUnaligned(fromByteOffset: clean, as: UInt64.self)) {
                    clean += 8
                }
            }
            for index in clean..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                appendEscaped(byte)
                runStart = index + 1
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is below 0x20, a quote or a backslash (bit tricks:
    /// a byte's high bit survives in `(x - 0x01…) & ~x` only where the byte of `x` was zero).
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return control || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
        case 0 where replacesNUL:
            bytes.append(contentsOf: Self.replacementCharacter)
            replacedNUL = true
        default:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0x0F)])
        }
    }
}
