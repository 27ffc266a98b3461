/// A forward cursor over UTF-8 bytes with the small grammar pieces the date and
/// time-of-day parsers share. Every `consume…`/`scan…` method leaves the cursor where
/// it was when it does not match.
struct ByteScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    let end: Int

    /// Scans `bytes` without leading and trailing ASCII spaces, tabs and line breaks.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        var end = bytes.count
        while start < end, Self.isASCIIWhitespace(bytes[start]) { start += 1 }
        while end > start, Self.isASCIIWhitespace(bytes[end - 1]) { end -= 1 }
        self.bytes = bytes
        self.index = start
        self.end = end
    }

    var isAtEnd: Bool { index >= end }

    /// The byte at the cursor, or 0 at the end (0 matches nothing the grammars want).
    var current: UInt8 { index < end ? bytes[index] : 0 }

    @inline(__always)
    static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    @inline(__always)
    static func digitValue(_ byte: UInt8) -> Int? {
        let value = byte &- 0x30
        return value < 10 ? Int(value) : nil
    }

    /// Consumes `byte` when it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < end, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes `sequence` when it is next.
    mutating func consume(_ sequence: [UInt8]) -> Bool {
        guard end - index >= sequence.count else { return false }
        for (offset, byte) in sequence.enumerated() where bytes[index + offset] != byte { return false }
        index += sequence.count
        return true
    }

    /// Exactly `count` ASCII digits at `offset` of the bytes as a number (the cursor moved there first).
    @inline(__always)
    mutating func digits(_ count: Int, at offset: Int) -> Int? {
        index = offset
        return digits(count)
    }

    /// Exactly `count` ASCII digits as a number.
    @inline(__always)
    mutating func digits(_ count: Int) -> Int? {
        guard end - index >= count else { return nil }
        var value = 0
        for offset in 0..<count {
            guard let digit = Self.digitValue(bytes[index + offset]) else { return nil }
            value = value * 10 + digit
        }
        index += count
        return value
    }

    /// One or two ASCII digits as a number (an hour written `9` or `09`).
    mutating func oneOrTwoDigits() -> Int? {
        guard let first = Self.digitValue(current) else { return nil }
        index += 1
        guard let second = Self.digitValue(current) else { return first }
        index += 1
        return first * 10 + second
    }

    /// Skips spaces as producers put them between a time and its AM/PM marker or offset:
    /// ASCII space and tab, U+00A0 NO-BREAK SPACE, U+202F NARROW NO-BREAK SPACE,
    /// U+2009 THIN SPACE. Returns whether anything was skipped.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = index
        while index < end {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 {
                index += 1
            } else if byte == 0xC2, index + 1 < end, bytes[index + 1] == 0xA0 {
                index += 2
            } else if byte == 0xE2, index + 2 < end, bytes[index + 1] == 0x80,
                      bytes[index + 2] == 0xAF || bytes[index + 2] == 0x89 {
                index += 3
            } else {
                break
            }
        }
        return index != start
    }

    /// A decimal fraction of a second after `.` or `,`, truncated to milliseconds
    /// (`.5` → 500, `.123456` → 123). Absent: 0. Nil when a separator has no digits.
    mutating func fractionMilliseconds() -> Int? {
        let byte = current
        guard byte == UInt8(ascii: ".") || byte == UInt8(ascii: ",") else { return 0 }
        guard index + 1 < end, Self.digitValue(bytes[index + 1]) != nil else { return nil }
        index += 1
        var milliseconds = 0
        var scale = 100
        while let digit = Self.digitValue(current) {
            milliseconds += digit * scale
            scale /= 10
            index += 1
        }
        return milliseconds
    }

    /// Morning or afternoon, as a 12-hour time marks it.
    enum Meridiem { case am, pm }

    /// `AM`/`PM` in any letter case, with or without dots (`a.m.`), or the Japanese,
    /// Chinese and Korean markers (`午前`/`午後`, `上午`/`下午`, `오전`/`오후`).
    mutating func meridiem() -> Meridiem? {
        let byte = current | 0x20 // ASCII lower case
        if byte == UInt8(ascii: "a") || byte == UInt8(ascii: "p") {
            let start = index
            index += 1
            _ = consume(UInt8(ascii: "."))
            if current | 0x20 == UInt8(ascii: "m") {
                index += 1
                _ = consume(UInt8(ascii: "."))
                // A marker is a whole word: `AMT` or `pmx` is not one.
                if !isAtEnd, Self.isASCIILetter(current) {
                    index = start
                    return nil
                }
                return byte == UInt8(ascii: "a") ? .am : .pm
            }
            index = start
            return nil
        }
        guard byte >= 0xE0 else { return nil }
        for marker in Self.morningMarkers where consume(marker) { return .am }
        for marker in Self.afternoonMarkers where consume(marker) { return .pm }
        return nil
    }

    @inline(__always)
    static func isASCIILetter(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
    }

    /// 午前, 上午, 오전.
    static let morningMarkers: [[UInt8]] = [
        [0xE5, 0x8D, 0x88, 0xE5, 0x89, 0x8D], [0xE4, 0xB8, 0x8A, 0xE5, 0x8D, 0x88], [0xEC, 0x98, 0xA4, 0xEC, 0xA0, 0x84],
    ]
    /// 午後, 下午, 오후.
    static let afternoonMarkers: [[UInt8]] = [
        [0xE5, 0x8D, 0x88, 0xE5, 0xBE, 0x8C], [0xE4, 0xB8, 0x8B, 0xE5, 0x8D, 0x88], [0xEC, 0x98, 0xA4, 0xED, 0x9B, 0x84],
    ]

    /// A time of day: an optional leading marker (`午後6:14:48`), `H:mm` or `HH:mm`,
    /// optional `:ss` (or `H.mm.ss`, seconds required), an optional fraction (`.94`, `,67`), then optionally spaces and
    /// an AM/PM marker. Returns milliseconds since local midnight; nil when malformed
    /// or out of range (hour 24, minute 60, `13:00 PM`, `0:30 AM`).
    mutating func timeOfDayMilliseconds() -> Int? {
        let start = index
        let leadingMarker = Self.isASCIIDigit(current) ? nil : meridiem()
        if leadingMarker != nil { skipSpaces() }
        guard var hour = oneOrTwoDigits() else {
            index = start
            return nil
        }
        // `:` between the fields, or `.` as Finnish, Danish and Indonesian write them (`8.14.49,5`),
        // then with the seconds required, so that a lone `8.14` is no time.
        let separator = current == UInt8(ascii: ".") ? UInt8(ascii: ".") : UInt8(ascii: ":")
        guard consume(separator), let minute = digits(2), minute < 60 else {
            index = start
            return nil
        }
        var second = 0
        var milliseconds = 0
        if separator == UInt8(ascii: "."), current != separator {
            index = start
            return nil
        }
        if consume(separator) {
            guard let value = digits(2), value < 60, let fraction = fractionMilliseconds() else {
                index = start
                return nil
            }
            second = value
            milliseconds = fraction
        }
        var marker = leadingMarker
        if marker == nil {
            let beforeSpaces = index
            skipSpaces()
            marker = meridiem()
            if marker == nil { index = beforeSpaces }
        }
        switch marker {
        case nil:
            guard hour < 24 else { index = start; return nil }
        case .am?:
            guard hour >= 1 && hour <= 12 else { index = start; return nil }
            if hour == 12 { hour = 0 }
        case .pm?:
            guard hour >= 1 && hour <= 12 else { index = start; return nil }
            if hour != 12 { hour += 12 }
        }
        return ((hour * 60 + minute) * 60 + second) * 1000 + milliseconds
    }

    @inline(__always)
    static func isASCIIDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// A UTC offset: `Z`, `UTC`, `GMT`, or a sign (`+`, `-`, U+2212) with `HH`, `HHMM`
    /// or `HH:MM`. Returns seconds east of UTC; nil when no offset is next or it is malformed.
    mutating func utcOffsetSeconds() -> Int? {
        let start = index
        let byte = current
        if byte == UInt8(ascii: "Z") || byte == UInt8(ascii: "z") {
            index += 1
            return 0
        }
        if consume(Self.utc) || consume(Self.gmt) {
            // `UTC` alone, or `UTC+01:00`.
            if isAtEnd { return 0 }
        }
        let negative: Bool
        if consume(UInt8(ascii: "+")) {
            negative = false
        } else if consume(UInt8(ascii: "-")) || consume(Self.minusSign) {
            negative = true
        } else {
            index = start
            return nil
        }
        guard let hours = digits(2), hours < 24 else { index = start; return nil }
        var minutes = 0
        if consume(UInt8(ascii: ":")) {
            guard let value = digits(2) else { index = start; return nil }
            minutes = value
        } else if Self.isASCIIDigit(current) {
            guard let value = digits(2) else { index = start; return nil }
            minutes = value
        }
        guard minutes < 60 else { index = start; return nil }
        let seconds = hours * 3600 + minutes * 60
        return negative ? -seconds : seconds
    }

    static let utc: [UInt8] = Array("UTC".utf8)
    static let gmt: [UInt8] = Array("GMT".utf8)
    /// U+2212 MINUS SIGN, which some locales write in offsets.
    static let minusSign: [UInt8] = [0xE2, 0x88, 0x92]
}
