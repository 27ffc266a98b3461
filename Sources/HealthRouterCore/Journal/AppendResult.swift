/// What one `Journal.append` did with the items it was given.
public struct AppendResult: Sendable, Equatable {
    /// Samples never seen before, by kind.
    public var new: [SampleKind: Int] = [:]
    /// Samples seen before with the same content: nothing written.
    public var duplicates: [SampleKind: Int] = [:]
    /// Of the duplicates, those an import journaled earlier in the same input (`Journal.inputStart`):
    /// a record an export holds twice, a correlation member's second copy, a line given twice.
    public var repeatedInInput = 0
    /// Samples seen before under the same id with different content: a new entry, re-delivered.
    public var changed: [SampleKind: Int] = [:]
    /// Samples whose fingerprint matched a sample stored under another id: recorded as an alias.
    public var aliased = 0
    /// Tombstoned ids not recorded before.
    public var deletedIds = 0
    /// Samples and tombstoned ids left out because their id belongs to another user
    /// (`Journal.mayWrite`, `Journal.mayDelete`).
    public var refusedOtherUsersIds = 0
    /// Samples left out because a producer's id came again under another type (a client's bug:
    /// HealthKit's UUIDs are unique across types). The first type stays, as a Pulso server keeps
    /// the first element of a uuid. Counted as duplicates too.
    public var idsOfAnotherType = 0
    /// Samples left out because the journal holds a later version of them: a version a change
    /// replaced, met again in a replay read after it (`Journal.refusesEarlierVersions`), or an
    /// older export's profile. Counted as duplicates too.
    public var earlierVersions = 0
    /// Profiles deleted because a later one of the same user, of other content, replaced them
    /// (`Journal` keeps one profile a user in every store).
    public var replacedProfiles = 0
    /// The ids (in `SampleIdKey.canonicalCase`) of the samples counted in `refusedOtherUsersIds`
    /// and `idsOfAnotherType`: given, but not stored (a push's `/latest` leaves them out).
    public var refusedSampleIds: Set<String> = []
    /// Of this append alone (`merge` leaves them): the positions, in the items given, of those the
    /// journal left out, in whole or in part, and why. Per item, not per id: in a forwarded body
    /// two elements of one id (a sample and a deletion, or two deletions) may be two users', one
    /// taken and the other refused, and a push's reply names only the element refused.
    public var refusedItems: [Int: Refusal] = [:]

    /// Why the journal left an item out (`refusedItems`).
    public enum Refusal: Sendable, Equatable {
        /// A sample whose id another user's sample has.
        case anotherUsersId
        /// A sample whose uuid was sent before under another type, which it keeps.
        case anotherType
        /// A tombstone naming ids (these, in `SampleIdKey.canonicalCase`) of another user's
        /// samples, which were not deleted (not the aliases a tombstone brought).
        case deletion([String])
    }
    /// The sequence numbers of the entries written, when any.
    public var firstSequence: Int64?
    public var lastSequence: Int64?
    /// The types of the items given, written or not (nil: a tombstone): what a sink's routes must
    /// select for the append to concern it.
    public var itemTypes: Set<String?> = []

    public init() {}

    public var newCount: Int { new.values.reduce(0, +) }
    public var duplicateCount: Int { duplicates.values.reduce(0, +) }
    public var changedCount: Int { changed.values.reduce(0, +) }
    public var entriesWritten: Int {
        guard let first = firstSequence, let last = lastSequence else { return 0 }
        return Int(last - first + 1)
    }

    public mutating func merge(_ other: AppendResult) {
        new.merge(other.new, uniquingKeysWith: +)
        duplicates.merge(other.duplicates, uniquingKeysWith: +)
        repeatedInInput += other.repeatedInInput
        changed.merge(other.changed, uniquingKeysWith: +)
        aliased += other.aliased
        deletedIds += other.deletedIds
        refusedOtherUsersIds += other.refusedOtherUsersIds
        idsOfAnotherType += other.idsOfAnotherType
        earlierVersions += other.earlierVersions
        replacedProfiles += other.replacedProfiles
        refusedSampleIds.formUnion(other.refusedSampleIds)
        if firstSequence == nil { firstSequence = other.firstSequence }
        if other.lastSequence != nil { lastSequence = other.lastSequence }
        itemTypes.formUnion(other.itemTypes)
    }
}
