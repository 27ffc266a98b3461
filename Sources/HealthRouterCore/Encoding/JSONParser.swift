/// Parses one JSON text (RFC 8259) from UTF-8 bytes, byte by byte, into a `JSONValue`.
/// Strict: trailing text, unterminated strings, bad escapes and nesting deeper than 128
/// levels are errors that say at which byte. With `strict`, so are what it otherwise reads
/// leniently (as `JSONSerialization` refuses them): a number with a leading zero (`01`) and an
/// escaped UTF-16 surrogate without its other half (`"\ud800"`, else U+FFFD); with
/// `rejectingLoneSurrogates`, only the latter.
public struct JSONParser {
    /// A JSON text that cannot be read, with the byte offset where reading stopped.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var offset: Int
        public var problem: String
        public var description: String { "\(problem) at byte \(offset + 1)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private let strict: Bool
    private let rejectsLoneSurrogates: Bool

    private init(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool, rejectingLoneSurrogates: Bool) {
        self.bytes = bytes
        self.strict = strict
        rejectsLoneSurrogates = strict || rejectingLoneSurrogates
    }

    /// Parses `bytes`, which must hold exactly one JSON value (whitespace around it is allowed).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool = false,
                             rejectingLoneSurrogates: Bool = false) throws -> JSONValue {
        var parser = JSONParser(bytes, strict: strict, rejectingLoneSurrogates: rejectingLoneSurrogates)
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ bytes: ArraySlice<UInt8>, strict: Bool = false, rejectingLoneSurrogates: Bool = false) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { try parse($0, strict: strict, rejectingLoneSurrogates: rejectingLoneSurrogates) }
    }

    /// The problem of a `\u` escape of a UTF-16 surrogate without its other half.
    public static let loneSurrogate = "a UTF-16 surrogate without its other half"

    public static func parse(_ text: String) throws -> JSONValue {
        try Array(text.utf8).withUnsafeBufferPointer { try parse($0) }
    }

    private func failure(_ problem: String) -> Failure { Failure(offset: index, problem: problem) }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of the line") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character '\(Unicode.Scalar(bytes[index]))'")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end of the line") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unknown word")
        }
        index += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= 128 else { throw failure("nesting deeper than 128 levels") }
    }

    private mutating func object() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var pairs: [(key: String, value: JSONValue)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key in quotes") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            index += 1
            skipSpace()
            pairs.append((key, try value()))
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
            throw failure("expected ',' or '}' in an object")
        }
    }

    private mutating func array() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw failure("expected ',' or ']' in an array")
        }
    }

    /// A string starting at its opening quote; a run without escapes is copied in one go.
    private mutating func string() throws -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("control character in a string") }
            index += 1
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unterminated string") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            if rejectsLoneSurrogates { throw failure(Self.loneSurrogate) }
                            // The escape after it is a character of its own (`\ud800\u0041` is U+FFFD, A).
                            index -= 6
                            scalar = 0xFFFD
                        }
                    }
                    if rejectsLoneSurrogates, (0xD800..<0xE000).contains(scalar) { throw failure(Self.loneSurrogate) }
                    let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(character)).utf8))
                default: throw failure("unknown escape")
                }
            default:
                if byte < 0x20 { throw failure("control character in a string") }
                out.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - 55)
            default: throw failure("bad \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Whether `digits` (a number after its minus sign) is as RFC 8259 writes one: digits, then
    /// optionally `.` and digits, then optionally `e` or `E`, a sign, and digits (`1.` and `1.e2`
    /// are not).
    private static func isJSONNumber(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        func run() -> Int {
            let start = index
            while index < digits.count, (48...57).contains(digits[index]) { index += 1 }
            return index - start
        }
        guard run() > 0 else { return false }
        if index < digits.count, digits[index] == UInt8(ascii: ".") {
            index += 1
            guard run() > 0 else { return false }
        }
        if index < digits.count, digits[index] == UInt8(ascii: "e") || digits[index] == UInt8(ascii: "E") {
            index += 1
            if index < digits.count, digits[index] == UInt8(ascii: "+") || digits[index] == UInt8(ascii: "-") { index += 1 }
            guard run() > 0 else { return false }
        }
        return index == digits.count
    }

    /// A number; integers without fraction or exponent take a fast path, others strtod's exact one.
    private mutating func number() throws -> Double {
        let start = index
        var integral = true
        var accumulator: Int64 = 0
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        let digitsStart = index
        while index < bytes.count {
            let c = bytes[index]
            if c >= 48 && c <= 57 {
                if integral, index - digitsStart < 15 { accumulator = accumulator * 10 + Int64(c - 48) } else { integral = false }
                index += 1
            } else if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                        || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                integral = false
                index += 1
            } else {
                break
            }
        }
        guard index > digitsStart else { throw failure("bad number") }
        if strict, bytes[digitsStart] == UInt8(ascii: "0"), index > digitsStart + 1,
           (48...57).contains(bytes[digitsStart + 1]) {
            throw failure("a number with a leading zero")
        }
        if integral { return Double(negative ? -accumulator : accumulator) }
        if strict, !Self.isJSONNumber(UnsafeBufferPointer(rebasing: bytes[digitsStart..<index])) {
            throw failure("a number that JSON does not write so")
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw failure("bad number '\(text)'") }
        return value
    }
}
