/// One durable entry of the journal as a sink worker hands it to a sink.
public struct JournalEntry: Sendable, Hashable {
    /// The journal's sequence number: strictly increasing, never reused.
    public var sequence: Int64
    /// The name of the configured source that produced the item (`history`, `phone`).
    public var source: String
    public var item: HealthItem

    public init(sequence: Int64, source: String, item: HealthItem) {
        self.sequence = sequence
        self.source = source
        self.item = item
    }
}
