/// Appends bytes to a caller-provided buffer that is known to be large enough
/// (the caller computes an upper bound first), so building a fingerprint allocates nothing.
struct ByteWriter {
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
        var magnitude = value.magnitude
        // Write the digits backwards into their final place.
        var length = 1
        var probe = magnitude / 10
        while probe > 0 {
            length += 1
            probe /= 10
        }
        var position = count + length - 1
        repeat {
            buffer[position] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
            magnitude /= 10
            position -= 1
        } while magnitude > 0
        count += length
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
        var position = count + digits - 1
        for _ in 0..<digits {
            buffer[position] = UInt8(truncatingIfNeeded: fraction % 10) &+ 0x30
            fraction /= 10
            position -= 1
        }
        count += digits
    }
}
