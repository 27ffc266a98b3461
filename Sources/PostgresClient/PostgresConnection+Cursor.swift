extension PostgresConnection {
    /// Reads the rows of `query` through a server-side cursor named `name` (`DECLARE … NO SCROLL
    /// CURSOR`, inside the caller's transaction), `batchSize` rows at a time, so memory stays flat
    /// however many rows there are: `body` is given each fetched result and the row in it, in order.
    /// The cursor is closed once every row was read.
    public func forEachRow(of query: String, cursor name: String, batchSize: Int,
                           _ body: (PostgresResult, Int) throws -> Void) throws {
        try execute("DECLARE \(name) NO SCROLL CURSOR FOR \(query)")
        while true {
            let result = try execute("FETCH \(batchSize) FROM \(name)")
            if result.rowCount == 0 { break }
            for row in 0..<result.rowCount { try body(result, row) }
        }
        try execute("CLOSE \(name)")
    }
}
