/// A set of 128-bit ids that may answer "yes" for an id never inserted, never "no" for one
/// inserted: 2²⁴ bits (2 MiB) and seven probes, taken from the id's own bits (UUIDs are hashes
/// already). With a million ids in it, about one id in 2,000 not inserted is taken for one.
struct IdBloomFilter {
    private var words = [UInt64](repeating: 0, count: 1 << 18)
    private static let probes: UInt64 = 7

    mutating func insert(_ high: UInt64, _ low: UInt64) {
        for probe in 0..<Self.probes {
            let bit = Self.bit(high, low, probe)
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
    }

    func contains(_ high: UInt64, _ low: UInt64) -> Bool {
        for probe in 0..<Self.probes {
            let bit = Self.bit(high, low, probe)
            if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// The probe's bit: the top 24 bits of `high + probe × low` (double hashing).
    private static func bit(_ high: UInt64, _ low: UInt64, _ probe: UInt64) -> Int {
        Int((high &+ probe &* (low | 1)) >> 40)
    }
}
