/// A stable 64-bit content hash (FNV-1a): unlike Swift's `Hasher` it is the same in
/// every process, so it can be stored.
public enum ContentHash {
    /// The hash of no bytes: where `continuing` starts (FNV-1a's offset basis).
    public static let empty = Int64(bitPattern: offsetBasis)
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    public static func of(_ bytes: [UInt8]) -> Int64 {
        of(bytes, skipping: [])
    }

    /// `hash` (of some bytes) continued over `bytes`: the hash of both, one after the other.
    public static func continuing(_ hash: Int64, over bytes: some Sequence<UInt8>) -> Int64 {
        var hash = UInt64(bitPattern: hash)
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* prime
        }
        return Int64(bitPattern: hash)
    }

    /// The hash of `bytes` without those in `skipped` (ascending, not overlapping): the hash of
    /// the bytes that are left, one after the other.
    public static func of(_ bytes: [UInt8], skipping skipped: [Range<Int>]) -> Int64 {
        var hash = offsetBasis
        bytes.withUnsafeBufferPointer { bytes in
            var from = 0
            func add(_ end: Int) {
                for index in from..<end {
                    hash ^= UInt64(bytes[index])
                    hash = hash &* prime
                }
            }
            for range in skipped {
                add(range.lowerBound)
                from = range.upperBound
            }
            add(bytes.count)
        }
        return Int64(bitPattern: hash)
    }
}
