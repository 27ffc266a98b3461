import HealthRouterCore

/// A 64-bit FNV-1a hash that is the same in every process and on every run (Swift's
/// `Hasher` is seeded per process), for digests stored in the database.
struct StableHasher {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    mutating func combine(_ integer: Int64) {
        var rest = UInt64(bitPattern: integer)
        for _ in 0..<8 {
            combine(byte: UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    mutating func combine(_ number: Double) { combine(Int64(bitPattern: number.bitPattern)) }

    /// Strings are length-prefixed, so `("ab", "c")` and `("a", "bc")` differ.
    mutating func combine(_ text: String) {
        combine(Int64(text.utf8.count))
        for byte in text.utf8 { combine(byte: byte) }
    }

    /// Optionals carry a presence tag, so nil differs from every value.
    mutating func combine(_ number: Double?) {
        guard let number else { combine(byte: 0); return }
        combine(byte: 1); combine(number)
    }

    mutating func combine(_ text: String?) {
        guard let text else { combine(byte: 0); return }
        combine(byte: 1); combine(text)
    }

    mutating func combine(_ timestamp: Timestamp?) {
        guard let timestamp else { combine(byte: 0); return }
        combine(byte: 1)
        combine(timestamp.epochMilliseconds)
        if let offset = timestamp.utcOffsetSeconds { combine(byte: 1); combine(Int64(offset)) } else { combine(byte: 0) }
    }

    mutating func combine(_ metadata: [MetadataEntry]) {
        combine(Int64(metadata.count))
        for entry in metadata {
            combine(entry.key)
            switch entry.value {
            case .string(let text): combine(byte: 1); combine(text)
            case .number(let number): combine(byte: 2); combine(number)
            case .bool(let flag): combine(byte: flag ? 4 : 3)
            case .json(let text): combine(byte: 5); combine(text)
            }
        }
    }

    /// The digest as SQLite stores integers.
    var signed: Int64 { Int64(bitPattern: value) }
}
