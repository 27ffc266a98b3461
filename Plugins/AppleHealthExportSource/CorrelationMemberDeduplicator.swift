/// Makes each correlation member come out once, although export.xml writes it twice:
/// inside its `<Correlation>` and again as a top-level `<Record>` (the DTD says so).
/// Both copies get the same fingerprint id.
///
/// Whichever copy comes first is emitted; the second is dropped by id (it is the same
/// sample, not data lost). Either order works: ids are remembered for top-level records
/// of types that can be members (blood pressure, dietary, and any type seen inside a
/// correlation in this run), and for members emitted from a correlation, and forgotten
/// when their twin arrives. Memory is bounded by the number of such records, not by the
/// size of the export.
struct CorrelationMemberDeduplicator {
    private var topLevelIds: Set<String> = []
    private var memberIds: Set<String> = []
    private var learnedMemberTypes: Set<String> = []
    /// Second copies dropped so far.
    private(set) var duplicatesDropped = 0

    /// Whether top-level records of `type` can also be correlation members.
    func canBeMember(type: String) -> Bool {
        type.hasPrefix("HKQuantityTypeIdentifierBloodPressure") || type.hasPrefix("HKQuantityTypeIdentifierDietary")
            || learnedMemberTypes.contains(type)
    }

    /// A correlation member with `id` of `type`: true when it should be emitted.
    mutating func shouldEmitMember(id: String, type: String) -> Bool {
        learnedMemberTypes.insert(type)
        if topLevelIds.remove(id) != nil {
            duplicatesDropped += 1
            return false
        }
        memberIds.insert(id)
        return true
    }

    /// A top-level record with `id` whose type `canBeMember`: true when it should be emitted.
    mutating func shouldEmitTopLevel(id: String) -> Bool {
        if memberIds.remove(id) != nil {
            duplicatesDropped += 1
            return false
        }
        topLevelIds.insert(id)
        return true
    }
}
