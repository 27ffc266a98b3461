/// Per type, a count and an order-independent content checksum of canonical samples: what
/// `migrate --verify` compares on both sides. The checksum of a sample is the content hash
/// of its journal encoding (`SampleCodec`), so any field that differs — id, instant, offset,
/// value, unit, metadata, a workout's child — changes it; the per-type checksum is the
/// wrapping sum of those (order does not matter; a sample counted twice does). A sample's
/// `extraFields` are left out: the SQL stores do not keep them, and a store that cannot hold
/// a field is not a different copy for it.
public struct SampleChecksum: Equatable {
    public struct Tally: Sendable, Equatable {
        public var count: Int64 = 0
        public var checksum: UInt64 = 0
    }

    public private(set) var byType: [String: Tally] = [:]
    private var writer = ByteWriter(capacity: 512)

    public init() {}

    public static func == (lhs: SampleChecksum, rhs: SampleChecksum) -> Bool { lhs.byType == rhs.byType }

    /// Adds `item` (tombstones are not counted: stores record deletions differently).
    public mutating func add(_ item: HealthItem) {
        guard case .sample(var sample) = item else { return }
        writer.reset()
        sample.extraFields = []
        SampleCodec.encode(sample: sample, into: &writer)
        let hash = UInt64(bitPattern: ContentHash.of(writer.bytes))
        byType[sample.type, default: Tally()].count += 1
        byType[sample.type, default: Tally()].checksum &+= hash
    }
}
