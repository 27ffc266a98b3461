import Foundation

/// Parses decimal numbers straight from attribute bytes, without building a String.
///
/// Up to 15 significant digits and a decimal exponent of at most 22 are converted
/// exactly (one correctly rounded multiply or divide); anything longer goes through
/// `strtod` on a NUL-terminated copy.
enum DecimalNumber {
    /// The value when the whole of `bytes` is a plain number (`72`, `-0.5`, `1.2e3`,
    /// surrounding spaces allowed), always finite; nil for `"56 degF"`, `""`, `"nan"`, `"inf"`,
    /// and for a number too large for a `Double` (`1e999`, see `isOutOfRange`).
    /// With `decimalComma`, `,` is accepted as the decimal separator too.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, decimalComma: Bool = false) -> Double? {
        guard let value = wholeNumber(bytes, decimalComma: decimalComma), value.isFinite else { return nil }
        return value
    }

    /// Whether `bytes` is a plain number too large for a `Double` (`1e999`, `-2e308`): why
    /// `parse` turned down something that is not text.
    static func isOutOfRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let value = wholeNumber(bytes, decimalComma: false) else { return false }
        return !value.isFinite
    }

    /// The number `bytes` starts with, ignoring what follows (`"41.4 m"` → 41.4); finite, nil
    /// when too large for a `Double`.
    static func parseLeading(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let value = scan(bytes, decimalComma: false)?.value, value.isFinite else { return nil }
        return value
    }

    /// `parse` without the range check: ±infinity for a number too large for a `Double`.
    private static func wholeNumber(_ bytes: UnsafeBufferPointer<UInt8>, decimalComma: Bool) -> Double? {
        guard let (value, end) = scan(bytes, decimalComma: decimalComma) else { return nil }
        var index = end
        while index < bytes.count, bytes[index] == 0x20 { index += 1 }
        return index == bytes.count ? value : nil
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, decimalComma: Bool) -> (value: Double, end: Int)? {
        let count = bytes.count
        var index = 0
        while index < count, bytes[index] == 0x20 { index += 1 }
        let start = index
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var digitCount = 0
        var exponent = 0
        while index < count, bytes[index] &- 48 < 10 {
            if mantissa != 0 || bytes[index] != 48 { significantDigits += 1 }
            if significantDigits <= 19 { mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- 48) } else { exponent += 1 }
            digitCount += 1
            index += 1
        }
        if index < count, bytes[index] == UInt8(ascii: ".") || (decimalComma && bytes[index] == UInt8(ascii: ",")) {
            index += 1
            while index < count, bytes[index] &- 48 < 10 {
                if mantissa != 0 || bytes[index] != 48 { significantDigits += 1 }
                if significantDigits <= 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- 48)
                    exponent -= 1
                }
                digitCount += 1
                index += 1
            }
        }
        guard digitCount > 0 else { return nil }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            var cursor = index + 1
            var exponentNegative = false
            if cursor < count, bytes[cursor] == UInt8(ascii: "-") || bytes[cursor] == UInt8(ascii: "+") {
                exponentNegative = bytes[cursor] == UInt8(ascii: "-")
                cursor += 1
            }
            var written = 0
            var digits = 0
            while cursor < count, bytes[cursor] &- 48 < 10 {
                if written < 10_000 { written = written * 10 + Int(bytes[cursor] &- 48) }
                digits += 1
                cursor += 1
            }
            if digits > 0 {
                exponent += exponentNegative ? -written : written
                index = cursor
            }
        }
        let value: Double
        if significantDigits <= 15 && exponent >= -22 && exponent <= 22 {
            value = exponent >= 0 ? Double(mantissa) * powersOfTen[exponent] : Double(mantissa) / powersOfTen[-exponent]
        } else {
            value = slowParse(bytes, from: start, to: index, decimalComma: decimalComma)
            return (value, index)
        }
        return (negative ? -value : value, index)
    }

    private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, decimalComma: Bool) -> Double {
        var text = [CChar]()
        text.reserveCapacity(end - start + 1)
        for index in start..<end {
            let byte = bytes[index]
            text.append(CChar(bitPattern: decimalComma && byte == UInt8(ascii: ",") ? UInt8(ascii: ".") : byte))
        }
        text.append(0)
        return text.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
    }
}

extension DecimalNumber {
    /// The value when `bytes` is a plain decimal a metadata value can safely become a
    /// number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 15 significant digits, so that
    /// identifiers (`007`, `12E3`, long digit strings) and texts with units stay strings.
    static func parsePlainMetadataNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = bytes.count
        guard count > 0, count <= 17 else { return nil }
        var digits = 0
        for byte in bytes where byte &- 48 < 10 { digits += 1 }
        guard digits <= 15 else { return nil }
        var index = bytes[0] == UInt8(ascii: "-") ? 1 : 0
        let integerStart = index
        while index < count, bytes[index] &- 48 < 10 { index += 1 }
        let integerDigits = index - integerStart
        guard integerDigits > 0 else { return nil }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { return nil }
        if index < count {
            guard bytes[index] == UInt8(ascii: ".") else { return nil }
            index += 1
            let fractionStart = index
            while index < count, bytes[index] &- 48 < 10 { index += 1 }
            guard index > fractionStart, index == count else { return nil }
        }
        return parse(bytes)
    }
}
