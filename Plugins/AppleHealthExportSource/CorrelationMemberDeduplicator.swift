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
/// (`Journal`'s twin names), not at its twin's.
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

    private mutating func digest(_ sample: Sample) -> Int64 {
        digestWriter.reset()
        SampleCodec.encode(sample: sample, into: &digestWriter)
        return ContentHash.of(digestWriter.bytes)
    }
}
