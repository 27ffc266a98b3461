/// A sink's progress as the journal records it.
public struct SinkState: Sendable {
    public var sink: String
    public var cursor: Int64
    public var written: Int64
    /// Milliseconds since the epoch of the last cursor move or error.
    public var updatedAt: Int64?
    public var lastError: String?
    public var deadLetters: Int64
}
