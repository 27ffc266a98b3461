/// Reads what `ByteWriter` wrote. Every read checks bounds and throws
/// `ByteReader.Truncated` instead of trapping on a damaged payload.
public struct ByteReader {
    public struct Truncated: Error, CustomStringConvertible {
        public var description: String { "journal payload is truncated or damaged" }
    }

    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    /// `buffer` must outlive the reader.
    public init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    public var isAtEnd: Bool { offset >= buffer.count }

    public mutating func byte() throws -> UInt8 {
        guard offset < buffer.count else { throw Truncated() }
        defer { offset += 1 }
        return buffer[offset]
    }

    public mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift > 63 { throw Truncated() }
        }
    }

    public mutating func signed() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    public mutating func double() throws -> Double {
        guard offset + 8 <= buffer.count else { throw Truncated() }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(buffer[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return Double(bitPattern: bits)
    }

    public mutating func string() throws -> String {
        // A length of 2^63 or more is no Int: `Int(_:)` would trap.
        guard let count = Int(exactly: try varint()), count <= buffer.count - offset else { throw Truncated() }
        defer { offset += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)]), as: UTF8.self)
    }

    public mutating func count() throws -> Int {
        // A damaged payload must not make us reserve gigabytes, nor trap on a count of 2^63 or more.
        guard let n = Int(exactly: try varint()), n <= buffer.count - offset + 1 else { throw Truncated() }
        return n
    }
}
