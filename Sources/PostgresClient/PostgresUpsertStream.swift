/// Streams the rows of one `PostgresUpsertTable` into its staging table while later rows are still
/// being encoded, so the server parses one part of a batch while the client encodes the next.
///
/// Append rows to a `CopyTextWriter`, call `sendIfFull(_:on:)` after each, and `finish(_:on:…)` to
/// end the COPY and run the upsert (both only inside the caller's transaction). Until `finish`,
/// nothing else may run on the connection: the COPY holds it. The upsert sees the rows of all
/// parts at once, so a batch dedups and upserts exactly as if it had been sent in one piece.
public struct PostgresUpsertStream {
    public let table: PostgresUpsertTable
    /// Once this many bytes are encoded, they are sent.
    public var chunkBytes: Int
    /// Whether the COPY into the staging table has started.
    public private(set) var isCopying = false

    public init(table: PostgresUpsertTable, chunkBytes: Int = 1 << 17) {
        self.table = table
        self.chunkBytes = chunkBytes
    }

    /// Sends `rows` once they fill a chunk (starting the COPY at the first) and empties them.
    public mutating func sendIfFull(_ rows: inout CopyTextWriter, on connection: PostgresConnection) throws {
        guard rows.bytes.count >= chunkBytes else { return }
        try send(&rows, on: connection)
    }

    private mutating func send(_ rows: inout CopyTextWriter, on connection: PostgresConnection) throws {
        if !isCopying {
            try connection.execute(table.createStagingSQL)
            try connection.beginCopy(table.copySQL)
            isCopying = true
        }
        try rows.bytes.withUnsafeBufferPointer { try connection.putCopyData($0) }
        rows.reset()
    }

    /// Sends the rest of `rows`, ends the COPY and upserts, as `PostgresUpsertTable.write` does
    /// (`returning`, `skippingUnchanged` and `run` likewise); returns the rows written, 0 when there was no row.
    @discardableResult
    public mutating func finish(_ rows: inout CopyTextWriter, on connection: PostgresConnection, returning: [String] = [],
                                skippingUnchanged: Bool = false, run: ((String) throws -> Int)? = nil) throws -> Int {
        guard isCopying || !rows.isEmpty else { return 0 }
        if !rows.isEmpty { try send(&rows, on: connection) }
        isCopying = false
        try connection.endCopy()
        return try table.upsertStaged(on: connection, returning: returning, skippingUnchanged: skippingUnchanged, run: run)
    }

    /// Forgets the COPY state, after a failed transaction (which ended the COPY).
    public mutating func reset() {
        isCopying = false
    }
}
