/// One durable entry of the journal as a sink worker hands it to a sink.
public struct JournalEntry: Sendable, Hashable {
    /// The journal's sequence number: strictly increasing, never reused. For an item that is not
    /// from the journal (`isFromJournal` false), its position in the read that brought it:
    /// increasing within that one delivery, unrelated to the journal's numbers.
    public var sequence: Int64
    /// The name of the configured source that produced the item (`history`, `phone`).
    public var source: String
    public var item: HealthItem
    /// No earlier entry of this journal holds this sample's id: the sample is new, not a change
    /// (false when unknown). A sink whose store held no sample when it began writing a run of such
    /// entries can insert them without looking for an existing row.
    public var isFirstOfId: Bool
    /// False for an item read straight from a file or another store and delivered around the
    /// journal (`backfill --from`, `migrate`): its `sequence` says nothing about which of two
    /// versions of a sample is the later one, so a sink must not compare it with a stored one.
    public var isFromJournal: Bool

    public init(sequence: Int64, source: String, item: HealthItem, isFirstOfId: Bool = false, isFromJournal: Bool = true) {
        self.sequence = sequence
        self.source = source
        self.item = item
        self.isFirstOfId = isFirstOfId
        self.isFromJournal = isFromJournal
    }
}

extension Array where Element == JournalEntry {
    /// Whether every entry is the first of its id: read in place, since a copy of an entry (as
    /// `allSatisfy` makes) retains every string of its sample.
    public var areAllFirstOfTheirId: Bool {
        withUnsafeBufferPointer { entries in entries.indices.allSatisfy { entries[$0].isFirstOfId } }
    }
}
