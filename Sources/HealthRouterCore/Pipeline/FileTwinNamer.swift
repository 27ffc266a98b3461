/// Gives the samples of one export read without the journal (`backfill --from`) the ids an
/// import of the file gives them (`Journal.twinsAfter`): of records one fingerprint cannot tell
/// apart (two foods of equal energy at one meal), the first keeps the fingerprint id and each
/// other content gets its twin id, and a correlation points at its members by those ids. A
/// copy of a sample the file held already (a correlation member's second copy) is said so, so
/// that it is not delivered twice.
///
/// It keeps, for every fingerprint id of the file, the 16 bytes of the id and a content hash:
/// about 40 bytes a sample.
public struct FileTwinNamer {
    private struct Key: Hashable {
        var high: UInt64
        var low: UInt64
    }

    private var firstContent: [Key: Int64] = [:]
    private var twinsSeen: Set<Key> = []
    /// Fingerprint id → twin id of the samples named since the last correlation (`Journal.twinNames`).
    private var twinNames: [String: String] = [:]
    private var writer: ByteWriter = {
        var writer = ByteWriter(capacity: 1024)
        writer.omitsOffsets = true
        return writer
    }()

    public init() {}

    /// Names `sample` (its id may become its twin id; a correlation's members are pointed at the
    /// ids given to them); false when the file held it already, under that id and with that content.
    public mutating func name(_ sample: inout Sample) -> Bool {
        if case .correlation(let members) = sample.detail {
            defer { twinNames.removeAll() }
            if members.contains(where: { twinNames[$0] != nil }) {
                let formerId = Fingerprint.id(of: sample)
                sample.detail = .correlation(memberIds: members.map { twinNames[$0] ?? $0 })
                if sample.id == formerId { sample.id = Fingerprint.id(of: sample) }
            }
        }
        // Only fingerprint ids have twins; a day's summary has one id whatever its content.
        guard Journal.isFingerprintId(sample.id), sample.kind != .activitySummary,
              let key = Self.key(sample.id) else { return true }
        let hash = contentHash(of: sample)
        guard let first = firstContent[key] else {
            firstContent[key] = hash
            twinNames.removeValue(forKey: sample.id)
            return true
        }
        if first == hash {
            twinNames.removeValue(forKey: sample.id)
            return false
        }
        let given = sample.id
        sample.id = Journal.twinId(of: given, contentHash: hash)
        twinNames[given] = sample.id
        guard let twin = Self.key(sample.id) else { return true }
        return twinsSeen.insert(twin).inserted
    }

    /// The journal's content hash of `sample`: its encoding without UTC offsets.
    private mutating func contentHash(of sample: Sample) -> Int64 {
        writer.reset()
        SampleCodec.encode(sample: sample, into: &writer)
        return ContentHash.of(writer.bytes)
    }

    /// The 128 bits of a UUID in its canonical form (`SampleIdKey`); nil for any other id.
    private static func key(_ id: String) -> Key? {
        guard case .uuid(let high, let low) = SampleIdKey.Key(id) else { return nil }
        return Key(high: high, low: low)
    }
}
