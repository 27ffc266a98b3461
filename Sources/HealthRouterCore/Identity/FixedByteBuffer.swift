/// Appends bytes to a caller-provided buffer that is known to be large enough
/// (the caller computes an upper bound first), so building a fingerprint allocates nothing.
struct FixedByteBuffer {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        buffer[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (buffer.baseAddress! + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// The UTF-8 bytes of `text`.
    mutating func append(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append($0) }
        if copied == nil {
            for byte in text.utf8 { append(byte) }
        }
    }

    /// A decimal integer (at most 20 bytes).
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, count: Self.digitCount(value.magnitude))
    }

    /// The number of decimal digits of `value` (1 for 0).
    @inline(__always)
    static func digitCount(_ value: UInt64) -> Int {
        var count = 1
        var threshold: UInt64 = 10
        while count < 20 && value >= threshold {
            count += 1
            threshold = threshold &* 10
        }
        return count
    }

    /// The `count` lowest decimal digits of `value`, zero-padded, written in place.
    @inline(__always)
    private mutating func appendDigits(_ value: UInt64, count digits: Int) {
        var rest = value
        var position = count + digits - 1
        while position >= count {
            buffer[position] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
            position -= 1
        }
        count += digits
    }

    /// `value` rounded to 1e-6 and written with as few digits as that needs (`96`,
    /// `0.5`, `-1.25`, `0.000001`): so 0.96 × 100 = 96.00000000000001 writes as `96`.
    /// Magnitudes beyond 9e12, where a millionth is below a double's precision, are
    /// written in Swift's shortest round-trip form; non-finite values as `nan`, `inf`, `-inf`.
    mutating func appendMinimal(_ value: Double) {
        guard value.isFinite else {
            append(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf")
            return
        }
        let micros = (value * 1_000_000).rounded()
        guard abs(micros) < 9e18 else {
            append(value.description)
            return
        }
        let scaled = Int64(micros)
        if scaled < 0 { append(UInt8(ascii: "-")) }
        let magnitude = scaled.magnitude
        appendDecimal(Int64(magnitude / 1_000_000))
        var fraction = magnitude % 1_000_000
        guard fraction != 0 else { return }
        append(UInt8(ascii: "."))
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        appendDigits(fraction, count: digits)
    }
}
