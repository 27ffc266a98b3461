/// A sink's progress as the journal records it.
public struct SinkState: Sendable {
    public var sink: String
    public var cursor: Int64
    public var written: Int64
    /// Milliseconds since the epoch of the last cursor move or error.
    public var updatedAt: Int64?
    public var lastError: String?
    public var deadLetters: Int64

    /// `sink`'s state; by default one that has neither written nor failed yet.
    public init(sink: String, cursor: Int64 = 0, written: Int64 = 0, updatedAt: Int64? = nil, lastError: String? = nil,
                deadLetters: Int64 = 0) {
        self.sink = sink
        self.cursor = cursor
        self.written = written
        self.updatedAt = updatedAt
        self.lastError = lastError
        self.deadLetters = deadLetters
    }
}
