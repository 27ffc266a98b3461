/// The content hash the NDJSON index keeps per id: 64 bits over a line's bytes without its
/// `receivedAt`, the same in every process and on every run (Swift's `Hasher` is seeded per
/// process). Eight bytes a step, so hashing keeps up with encoding.
enum NDJSONLineHash {
    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        var state: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            state = mix(state ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        state = mix(state ^ tail ^ 0x80)
        return Int64(bitPattern: finalize(state))
    }

    static func hash(_ bytes: [UInt8]) -> Int64 {
        bytes.withUnsafeBytes { hash($0) }
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value &* 0x9E37_79B9_7F4A_7C15
        return product ^ (product >> 29)
    }

    /// MurmurHash3's 64-bit finaliser: every input bit reaches every output bit.
    private static func finalize(_ value: UInt64) -> UInt64 {
        var h = value
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
