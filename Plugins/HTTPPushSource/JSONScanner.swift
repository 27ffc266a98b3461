import Foundation

/// A strict, byte-level JSON reader over a buffer, for the hot path of `POST /ingest`.
/// Every method throws `JSONScanner.Unsupported` on anything it does not read exactly
/// (a syntax error, a lone surrogate, invalid UTF-8, nesting deeper than 512): the caller
/// then falls back to `JSONSerialization`, which decides what the error is.
struct JSONScanner {
    struct Unsupported: Error {}

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool { index >= bytes.count }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, not consumed.
    mutating func peek() throws(Unsupported) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw Unsupported() }
        return bytes[index]
    }

    mutating func consume(_ byte: UInt8) throws(Unsupported) {
        guard try peek() == byte else { throw Unsupported() }
        index += 1
    }

    /// Consumes `byte` when it comes next.
    mutating func consumeIf(_ byte: UInt8) throws(Unsupported) -> Bool {
        guard try peek() == byte else { return false }
        index += 1
        return true
    }

    /// After a value inside a container: true when another one follows (`,`), false at `close`.
    mutating func next(close: UInt8) throws(Unsupported) -> Bool {
        let byte = try peek()
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == close { return false }
        throw Unsupported()
    }

    /// The bytes of a string without escapes, checked as UTF-8 (the opening quote comes next);
    /// nil, with nothing consumed, when the string has escapes.
    mutating func rawString() throws(Unsupported) -> UnsafeBufferPointer<UInt8>? {
        let opening = index
        try consume(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        skipPlainASCII()
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if !ascii && String(validating: slice, as: UTF8.self) == nil { throw Unsupported() }
                return slice
            }
            if byte == UInt8(ascii: "\\") {
                index = opening
                return nil
            }
            if byte < 0x20 { throw Unsupported() }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw Unsupported()
    }

    /// Skips bytes 8 at a time up to the first that is a quote, a backslash, a control
    /// character or non-ASCII (the byte loop after it looks at that one).
    private mutating func skipPlainASCII() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let base = UnsafeRawPointer(bytes.baseAddress!)
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // A byte's high bit is set in each term when: it is zero (quote, backslash), it is
            // below 0x20, or it is 0x80 or above.
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((word &- ones &* 0x20) & ~word) | word
            let flags = special & highs
            if flags != 0 {
                // Borrows only flag bytes above a flagged one: the lowest flag is a real stop.
                index += flags.trailingZeroBitCount / 8
                return
            }
            index += 8
        }
    }

    /// The last string read into one field, kept so that the same bytes again give the
    /// same `String` without allocating (a batch repeats its type, unit, source, bundle id).
    struct ReusedString {
        fileprivate var bytes: UnsafeBufferPointer<UInt8>?
        fileprivate var value = ""
    }

    /// A string value like `string()`, reusing `slot`'s `String` when the bytes are the
    /// same as last time. The bytes `slot` remembers must outlive it (one body's parse).
    mutating func string(reusing slot: inout ReusedString) throws(Unsupported) -> String {
        guard let raw = try rawString() else { return try string() }
        if let previous = slot.bytes, previous.count == raw.count,
           raw.count == 0 || memcmp(previous.baseAddress!, raw.baseAddress!, raw.count) == 0 {
            return slot.value
        }
        let value = String(decoding: raw, as: UTF8.self)
        slot = ReusedString(bytes: raw, value: value)
        return value
    }

    /// A string value (the opening quote comes next).
    mutating func string() throws(Unsupported) -> String {
        if let raw = try rawString() { return String(decoding: raw, as: UTF8.self) }
        try consume(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else { throw Unsupported() }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw Unsupported() }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw Unsupported()
    }

    private mutating func escapedString(from start: Int) throws(Unsupported) -> String {
        var out: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw Unsupported() }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Unsupported() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw Unsupported() }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Unsupported() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw Unsupported()
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw Unsupported() }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw Unsupported()
                }
            default:
                if byte < 0x20 { throw Unsupported() }
                out.append(byte)
            }
        }
        throw Unsupported()
    }

    private mutating func hex4() throws(Unsupported) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Unsupported() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw Unsupported()
            }
            value = value << 4 | digit
        }
        return value
    }

    /// A number value, checked against JSON's grammar, read with `strtod`: ±infinity when it is
    /// out of a double's range (`1e400`), for the caller to refuse that one value (a whole batch
    /// refused for it would come back at every retry and block every batch behind it).
    mutating func number() throws(Unsupported) -> Double {
        skipWhitespace()
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw Unsupported() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw Unsupported() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw Unsupported() }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Unsupported() }
        }
        // strtod stops at the byte after the number, which must exist inside the buffer.
        guard index < bytes.count else { throw Unsupported() }
        let value = bytes.baseAddress!.advanced(by: start).withMemoryRebound(to: CChar.self, capacity: index - start + 1) {
            strtod($0, nil)
        }
        return value
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        return index - start
    }

    /// `true`, `false` or `null` (the first byte is next).
    mutating func literal() throws(Unsupported) -> Bool? {
        let byte = try peek()
        let (word, value): ([UInt8], Bool?) = switch byte {
        case UInt8(ascii: "t"): (Self.trueBytes, true)
        case UInt8(ascii: "f"): (Self.falseBytes, false)
        case UInt8(ascii: "n"): (Self.nullBytes, nil)
        default: throw Unsupported()
        }
        guard index + word.count <= bytes.count, bytes[index..<(index + word.count)].elementsEqual(word) else {
            throw Unsupported()
        }
        index += word.count
        return value
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)

    /// Skips one value of any kind, checking it.
    mutating func skipValue(depth: Int = 0) throws(Unsupported) {
        guard depth < 512 else { throw Unsupported() }
        switch try peek() {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"):
            index += 1
            if try consumeIf(UInt8(ascii: "}")) { return }
            repeat {
                _ = try string()
                try consume(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while try next(close: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if try consumeIf(UInt8(ascii: "]")) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try next(close: UInt8(ascii: "]"))
        case UInt8(ascii: "-"), 0x30...0x39:
            _ = try number()
        default:
            _ = try literal()
        }
    }
}
