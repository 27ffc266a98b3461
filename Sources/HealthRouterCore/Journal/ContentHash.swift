/// A stable 64-bit content hash (FNV-1a): unlike Swift's `Hasher` it is the same in
/// every process, so it can be stored.
public enum ContentHash {
    public static func of(_ bytes: [UInt8]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
