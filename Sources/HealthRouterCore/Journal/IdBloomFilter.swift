/// A set of 128-bit ids that may answer "yes" for an id never inserted, never "no" for one
/// inserted: 16 bits an id it is sized for (a power of two, 2²⁰ to 2³¹ bits) and seven probes,
/// taken from the id's own bits (UUIDs are hashes already). Filled with as many ids as it is
/// sized for, it takes about one id in 2,000 not inserted for one.
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

    mutating func insert(_ high: UInt64, _ low: UInt64) {
        for probe in 0..<Self.probes {
            let bit = self.bit(high, low, probe)
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
    }

    func contains(_ high: UInt64, _ low: UInt64) -> Bool {
        for probe in 0..<Self.probes {
            let bit = self.bit(high, low, probe)
            if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// The probe's bit: the top bits of `high + probe × low` (double hashing).
    private func bit(_ high: UInt64, _ low: UInt64, _ probe: UInt64) -> Int {
        Int((high &+ probe &* (low | 1)) >> shift)
    }
}
