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

    /// The entry decoded; throws `Damaged` (naming the entry) when its payload cannot be read.
    public func decoded() throws -> JournalEntry {
        do {
            return JournalEntry(sequence: sequence, source: source, item: try SampleCodec.decode(payload), isFirstOfId: isFirstOfId)
        } catch {
            throw Damaged(sequence: sequence, type: type, problem: "\(error)")
        }
    }

    /// An entry whose payload cannot be decoded (a journal file damaged on disk).
    public struct Damaged: Error, CustomStringConvertible {
        public var sequence: Int64
        public var type: String?
        public var problem: String
        public var description: String {
            "journal entry \(sequence)\(type.map { " (\($0))" } ?? "") cannot be read: \(problem)"
        }
    }
}
