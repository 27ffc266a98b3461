#if canImport(Glibc)
import Glibc
#endif
/// Canonical device descriptions. HealthKit describes a sample's device as
/// `<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:7.2>`,
/// where `0x282a45810` is a memory address that differs on every record (so one
/// watch would look like thousands of devices).
///
/// The canonical form drops the address together with the `: ` before it:
/// `<<HKDevice>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:7.2>`.
/// Everything else is kept byte for byte (including a trailing `creation date:…`).
/// Precisely: every `: 0x` followed by one or more hex digits and then `>` loses the
/// `: 0x…` part. Canonicalising is idempotent, and a description without an address
/// is returned as it is (without copying).
public enum DeviceName {
    /// `description` with its per-record addresses removed.
    public static func canonical(_ description: String) -> String {
        if let stripped = description.utf8.withContiguousStorageIfAvailable({ strip($0) }) {
            return stripped ?? description
        }
        var copy = description
        return copy.withUTF8 { strip($0) } ?? description
    }

    /// `canonical(_:)` for an optional description.
    public static func canonical(_ description: String?) -> String? {
        description.map { canonical($0) }
    }

    /// Whether `description` carries an address `canonical(_:)` would remove.
    public static func hasAddress(_ description: String) -> Bool {
        var copy = description
        return copy.withUTF8 { nextAddress(in: $0, from: 0) != nil }
    }

    /// Calls `body` with the bytes of `bytes`' canonical form (the same bytes when there is no
    /// address): for a parser that shares one `String` per device instead of making one per record.
    public static func withCanonicalBytes<R>(_ bytes: UnsafeBufferPointer<UInt8>,
                                             _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let first = nextAddress(in: bytes, from: 0) else { return body(bytes) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { output in
            body(UnsafeBufferPointer(rebasing: output[..<removeAddresses(from: bytes, first: first, into: output)]))
        }
    }

    /// The description without addresses, or nil when there is none to remove.
    private static func strip(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let first = nextAddress(in: bytes, from: 0) else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { output in
            String(decoding: UnsafeBufferPointer(rebasing: output[..<removeAddresses(from: bytes, first: first, into: output)]),
                   as: UTF8.self)
        }
    }

    /// Writes `bytes` without their addresses, the first at `first`, into `output` (at least as
    /// long); returns the count.
    private static func removeAddresses(from bytes: UnsafeBufferPointer<UInt8>, first: Range<Int>,
                                        into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var written = 0
        var copiedUpTo = 0
        var found: Range<Int>? = first
        while let address = found {
            defer { found = nextAddress(in: bytes, from: copiedUpTo) }
            let segment = UnsafeBufferPointer(rebasing: bytes[copiedUpTo..<address.lowerBound])
            _ = UnsafeMutableBufferPointer(rebasing: output[written...]).initialize(from: segment)
            written += segment.count
            copiedUpTo = address.upperBound
        }
        let rest = UnsafeBufferPointer(rebasing: bytes[copiedUpTo...])
        _ = UnsafeMutableBufferPointer(rebasing: output[written...]).initialize(from: rest)
        return written + rest.count
    }

    /// The range of the next `: 0x<hex digits>` that is followed by `>`, from `start` on.
    private static func nextAddress(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index + 4 < count {
            // From colon to colon (memchr), not byte by byte: a description has a handful.
            guard let colon = memchr(base + index, Int32(UInt8(ascii: ":")), count - index) else { return nil }
            index = base.distance(to: colon.assumingMemoryBound(to: UInt8.self))
            guard index + 4 < count else { return nil }
            guard bytes[index + 1] == UInt8(ascii: " "),
                  bytes[index + 2] == UInt8(ascii: "0"), bytes[index + 3] | 0x20 == UInt8(ascii: "x") else {
                index += 1
                continue
            }
            var end = index + 4
            while end < count, isHexDigit(bytes[end]) { end += 1 }
            if end > index + 4, end < count, bytes[end] == UInt8(ascii: ">") { return index..<end }
            index += 1
        }
        return nil
    }

    @inline(__always)
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6
    }
}
