/// One durable entry of the journal as a sink worker hands it to a sink.
public struct JournalEntry: Sendable, Hashable {
    /// The journal's sequence number: strictly increasing, never reused.
    public var sequence: Int64
    /// The name of the configured source that produced the item (`history`, `phone`).
    public var source: String
    public var item: HealthItem
    /// No earlier entry of this journal holds this sample's id: the sample is new, not a change
    /// (false when unknown). A sink whose store held no sample when it began writing a run of such
    /// entries can insert them without looking for an existing row.
    public var isFirstOfId: Bool

    public init(sequence: Int64, source: String, item: HealthItem, isFirstOfId: Bool = false) {
        self.sequence = sequence
        self.source = source
        self.item = item
        self.isFirstOfId = isFirstOfId
    }
}

extension Array where Element == JournalEntry {
    /// Whether every entry is the first of its id: read in place, since a copy of an entry (as
    /// `allSatisfy` makes) retains every string of its sample.
    public var areAllFirstOfTheirId: Bool {
        withUnsafeBufferPointer { entries in entries.indices.allSatisfy { entries[$0].isFirstOfId } }
    }
}
