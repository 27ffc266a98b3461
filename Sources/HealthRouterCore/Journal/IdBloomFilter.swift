/// A set of 128-bit ids that may answer "yes" for an id never inserted, never "no" for one
/// inserted: 16 bits an id it is sized for (a power of two, 2²⁰ to 2³¹ bits) and seven probes
/// (double hashing of the id's two halves, each mixed first: a UUID's version and variant bits
/// are fixed). Filled with as many ids as it is sized for, it takes about one id in 1,400 not
/// inserted for one.
struct IdBloomFilter {
    private var words: [UInt64]
    /// How far a probe's 64 bits are shifted right to leave its bit index.
    private let shift: UInt64
    private static let probes: UInt64 = 7

    /// A filter for about `capacity` ids.
    init(capacity: Int) {
        var bits = 20
        while bits < 31 && (1 << bits) < capacity.multipliedReportingOverflow(by: 16).partialValue { bits += 1 }
        words = [UInt64](repeating: 0, count: 1 << (bits - 6))
        shift = UInt64(64 - bits)
    }

    /// How many bits it has.
    var bitCount: Int { words.count << 6 }

    mutating func insert(_ high: UInt64, _ low: UInt64) {
        let (first, step) = Self.hashes(high, low)
        for probe in 0..<Self.probes {
            let bit = self.bit(first, step, probe)
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
    }

    func contains(_ high: UInt64, _ low: UInt64) -> Bool {
        let (first, step) = Self.hashes(high, low)
        for probe in 0..<Self.probes {
            let bit = self.bit(first, step, probe)
            if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// Two 64-bit hashes of the id, every bit of each depending on every bit of the id.
    private static func hashes(_ high: UInt64, _ low: UInt64) -> (UInt64, UInt64) {
        (mix(high ^ mix(low)), mix(low &+ 0x9E37_79B9_7F4A_7C15 ^ high) | 1)
    }

    /// SplitMix64's finaliser.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The probe's bit: the top bits of `first + probe × step` (double hashing).
    private func bit(_ first: UInt64, _ step: UInt64, _ probe: UInt64) -> Int {
        Int((first &+ probe &* step) >> shift)
    }
}
