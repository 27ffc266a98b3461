import Testing
@testable import HealthRouterCore

@Suite struct IdBloomFilterTests {
    /// The 128 bits of the fingerprint-shaped id (a UUIDv5, whose version and variant bits are
    /// the same in every id) named `name`.
    static func key(_ name: String) -> (UInt64, UInt64) {
        guard case .uuid(let high, let low) = SampleIdKey.Key(UUIDv5.string(name: name)) else {
            preconditionFailure("not a UUID")
        }
        return (high, low)
    }

    /// Filled with as many fingerprint ids as it is sized for, every one is found, and about one
    /// other id in 1,400 is taken for one (fewer than one in 800 here, over 100,000 others).
    @Test func holdsWhatItWasGivenAndRarelyMore() {
        let capacity = 65_536
        var filter = IdBloomFilter(capacity: capacity)
        let inserted = (0..<capacity).map { Self.key("in \($0)") }
        for (high, low) in inserted { filter.insert(high, low) }
        #expect(inserted.allSatisfy { filter.contains($0.0, $0.1) })
        let others = 100_000
        let taken = (0..<others).filter { index in
            let (high, low) = Self.key("out \(index)")
            return filter.contains(high, low)
        }.count
        #expect(taken < others / 800, "\(taken) of \(others) taken for inserted")
    }

    /// Sized for more ids, a filter has more bits: past 2²⁰ bits, 16 an id.
    @Test func growsWithItsCapacity() {
        var small = IdBloomFilter(capacity: 10)
        var large = IdBloomFilter(capacity: 10_000_000)
        let (high, low) = Self.key("one")
        small.insert(high, low)
        large.insert(high, low)
        #expect(small.contains(high, low) && large.contains(high, low))
        #expect(small.bitCount == 1 << 20)
        #expect(large.bitCount == 1 << 28)
    }
}
