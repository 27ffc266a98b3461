/// A journal entry as read from disk, before its payload is decoded: enough for a
/// worker to route it without paying for the decode.
public struct StoredEntry {
    public var sequence: Int64
    public var source: String
    /// The sample's type; nil for a tombstone.
    public var type: String?
    public var payload: [UInt8]
    /// See `JournalEntry.isFirstOfId`.
    public var isFirstOfId = false

    public func decoded() throws -> JournalEntry {
        JournalEntry(sequence: sequence, source: source, item: try SampleCodec.decode(payload), isFirstOfId: isFirstOfId)
    }
}
