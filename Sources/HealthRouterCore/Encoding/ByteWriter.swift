/// Appends primitive values to a byte buffer in healthrouter's binary journal format:
/// LEB128 varints, zig-zag for signed integers, IEEE doubles little-endian,
/// strings as a varint length and UTF-8 bytes.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []
    /// Timestamps are written without their UTC offsets (`SampleCodec`): for a content hash that
    /// other offsets of the same instants do not change. Such bytes are hashed, never decoded.
    public var omitsOffsets = false
    /// Timestamps' UTC offsets are written, and where their bytes are kept in `offsetRanges`
    /// (ascending): the same hash can then be taken from the full encoding (`ContentHash.of(_:skipping:)`).
    public var marksOffsets = false
    public private(set) var offsetRanges: [Range<Int>] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        offsetRanges.removeAll(keepingCapacity: true)
    }

    /// Records that the bytes from `start` to the end hold an offset (with `marksOffsets`).
    mutating func markOffset(from start: Int) { offsetRanges.append(start..<bytes.count) }

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    public mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Writes `value`; -0 as 0, as JSON writers write it (`0`), so that a sample read back from
    /// a line written from it has the same encoding and content hash.
    public mutating func double(_ value: Double) {
        var bits = (value == 0 ? 0.0 : value).bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    public mutating func string(_ value: String) {
        var copy = value
        copy.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}
