import HealthRouterCore

/// Makes each correlation member come out once, although export.xml writes it twice:
/// inside its `<Correlation>` and again as a top-level `<Record>` (the DTD says so).
/// Both copies get the same fingerprint id and the same content.
///
/// Whichever copy comes first is emitted; the second is dropped by id and content (it is the
/// same sample, not data lost). Either order works: ids are remembered, with a digest of the
/// content, for top-level records of types that can be members (blood pressure, dietary, and any
/// type seen inside a correlation in this run), and for members emitted from a correlation, and
/// forgotten when their twin arrives. Memory is bounded by the number of such records, not by
/// the size of the export.
///
/// Records one fingerprint cannot tell apart (two foods of equal energy at one meal, each a
/// member of its own correlation) are twins: the journal gives the second a twin id. Once an id
/// was met with two contents, every copy of it is emitted, so that each member reaches the
/// journal just before its correlation and the correlation is pointed at the member's own id
/// (`Journal`'s twin names), not at its twin's. Members of the same content in correlations of
/// other content at one time (an app that names the food on the correlation only: an apple and a
/// pear of equal energy at one meal) are two samples too: `ownMemberIds` gives all but one of
/// them an id of their own, whatever the order of the correlations in the file.
///
/// Content is compared without the order of the metadata entries: the two copies of one member
/// may list them in another order.
struct CorrelationMemberDeduplicator {
    /// Id → content digest of the copies not yet met twice: top-level ones at `topLevel`, members at `member`.
    private var remembered: [[String: Int64]] = [[:], [:]]
    private static let topLevel = 0, member = 1
    /// Ids met with two contents: never dropped.
    private var twins: Set<String> = []
    private var learnedMemberTypes: Set<String> = []
    private var digestWriter = ByteWriter(capacity: 512)
    /// Second copies dropped so far.
    private(set) var duplicatesDropped = 0

    /// Whether top-level records of `type` can also be correlation members.
    func canBeMember(type: String) -> Bool {
        type.hasPrefix("HKQuantityTypeIdentifierBloodPressure") || type.hasPrefix("HKQuantityTypeIdentifierDietary")
            || learnedMemberTypes.contains(type)
    }

    /// A correlation member `sample` (with its id): true when it should be emitted.
    mutating func shouldEmitMember(_ sample: Sample) -> Bool {
        learnedMemberTypes.insert(sample.type)
        return shouldEmit(sample, as: Self.member)
    }

    /// A top-level record `sample` (with its id) whose type `canBeMember`: true when it should be emitted.
    mutating func shouldEmitTopLevel(_ sample: Sample) -> Bool {
        shouldEmit(sample, as: Self.topLevel)
    }

    /// Drops `sample`, a copy of kind `own`, when a copy of the other kind with its id and content
    /// was emitted; else remembers it, or marks its id as a twin's when met with another content.
    private mutating func shouldEmit(_ sample: Sample, as own: Int) -> Bool {
        let id = sample.id
        if twins.contains(id) { return true }
        let content = digest(sample)
        let other = 1 - own
        if let earlier = remembered[other][id] {
            if earlier == content {
                remembered[other].removeValue(forKey: id)
                duplicatesDropped += 1
                return false
            }
        } else if remembered[own][id] == nil || remembered[own][id] == content {
            remembered[own][id] = content
            return true
        }
        twins.insert(id)
        remembered[other].removeValue(forKey: id)
        remembered[own].removeValue(forKey: id)
        return true
    }

    /// A member reading: its id and the digest of its content.
    private struct Reading: Hashable {
        var id: String
        var content: Int64
    }

    /// The ids of their own that members get, by correlation and member position, among
    /// `correlations` (of one start, with their members and the digests
    /// `correlationDigest` gave them): a reading (a member's id and content) that is a member of
    /// correlations of more than one content keeps its id in the one of the smallest digest, and
    /// in each other gets the UUIDv5 of its id and that correlation's digest. The same in every
    /// import of the file, whatever the order of the correlations, and in a later export (the
    /// digest leaves out UTC offsets). Correlations of one content (the same food logged twice
    /// alike) share their members, as identical content is one sample.
    mutating func ownMemberIds(_ correlations: [(digest: Int64, members: [Sample])]) -> [[Int: String]] {
        var owners: [Reading: [Int64]] = [:]
        var readings: [[Reading]] = []
        for correlation in correlations {
            let memberReadings = correlation.members.map { Reading(id: $0.id, content: digest($0)) }
            for reading in memberReadings { owners[reading, default: []].append(correlation.digest) }
            readings.append(memberReadings)
        }
        return zip(correlations, readings).map { correlation, memberReadings in
            var own: [Int: String] = [:]
            for (position, reading) in memberReadings.enumerated() {
                guard let keeper = owners[reading]?.min(), keeper != correlation.digest else { continue }
                own[position] = UUIDv5.string(name: reading.id + "\u{1F}member of\u{1F}" + String(correlation.digest))
            }
            return own
        }
    }

    /// A digest of `correlation` and the contents of its `members` (in any order), without ids,
    /// UTC offsets and metadata order: what tells two correlations of one time apart (an apple's
    /// and a pear's; a blood pressure of 120/80 and one of 120/85).
    mutating func correlationDigest(_ correlation: Sample, members: [Sample]) -> Int64 {
        var bare = correlation
        bare.detail = .none
        let parts = [stableDigest(bare)] + members.map { member in
            var anonymous = member
            anonymous.id = ""
            return stableDigest(anonymous)
        }.sorted()
        return ContentHash.of(parts.withUnsafeBytes { [UInt8]($0) })
    }

    /// The digest of `sample` without its UTC offsets and metadata order.
    private mutating func stableDigest(_ sample: Sample) -> Int64 {
        var sorted = sample
        sorted.metadata.sort { $0.key < $1.key }
        digestWriter.reset()
        digestWriter.marksOffsets = true
        SampleCodec.encode(sample: sorted, into: &digestWriter)
        digestWriter.marksOffsets = false
        return ContentHash.of(digestWriter.bytes, skipping: digestWriter.offsetRanges)
    }

    private mutating func digest(_ sample: Sample) -> Int64 {
        digestWriter.reset()
        guard sample.metadata.count > 1 else {
            SampleCodec.encode(sample: sample, into: &digestWriter)
            return ContentHash.of(digestWriter.bytes)
        }
        var sorted = sample
        sorted.metadata.sort { $0.key < $1.key }
        SampleCodec.encode(sample: sorted, into: &digestWriter)
        return ContentHash.of(digestWriter.bytes)
    }
}
