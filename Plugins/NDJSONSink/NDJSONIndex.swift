import HealthRouterCore

/// The NDJSON sink's persistent index, `<directory>/.healthrouter-index.sqlite`:
///
/// - `ids`: per id, the content hash of its last sample line (NULL once a tombstone line
///   recorded it) and the journal sequence of that line (0 for lines found in the files
///   rather than written from the journal);
/// - `files`: per file stem, the bytes the index covers;
/// - `state`: the journal cursor of the last committed batch, and `in_flight`, set while a
///   batch is being appended (so that `prepare` knows the bytes beyond `covered` are that
///   batch's, not someone else's).
///
/// Commits are `synchronous=FULL`: the index is what makes a re-delivery write nothing.
final class NDJSONIndex {
    /// What the index knows about one id.
    struct Entry: Equatable {
        /// The hash of the id's last sample line; nil when its last line is a tombstone.
        var contentHash: Int64?
        var sequence: Int64
    }

    static let fileName = ".healthrouter-index.sqlite"
    static let version: Int64 = 1

    let database: SQLiteDatabase
    private let lookupStatement: SQLiteStatement
    private let storeIdStatement: SQLiteStatement
    private let storeFileStatement: SQLiteStatement
    private let storeCursorStatement: SQLiteStatement
    private let inFlightStatement: SQLiteStatement

    init(path: String) throws {
        let database = try SQLiteDatabase(path: path)
        self.database = database
        try database.execute("PRAGMA synchronous=FULL")
        try database.execute("PRAGMA cache_size = -32768")
        try database.transaction {
            try database.execute("""
                CREATE TABLE IF NOT EXISTS index_schema (version INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS ids (id TEXT PRIMARY KEY, content_hash INTEGER, journal_seq INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS files (stem TEXT PRIMARY KEY, covered INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), cursor INTEGER,
                                                  in_flight INTEGER NOT NULL DEFAULT 0);
                INSERT OR IGNORE INTO state (id) VALUES (1);
                """)
            if let stored = try database.scalarInt("SELECT max(version) FROM index_schema") {
                guard stored <= Self.version else {
                    throw SinkError.unavailable("\(path): index version \(stored) is newer than this healthrouter's"
                                                    + " (\(Self.version)); delete the file to rebuild it from the .ndjson files")
                }
            } else {
                try database.execute("INSERT INTO index_schema (version) VALUES (\(Self.version))")
            }
        }
        lookupStatement = try database.prepare("SELECT content_hash, journal_seq FROM ids WHERE id = ?")
        storeIdStatement = try database.prepare(
            "INSERT INTO ids (id, content_hash, journal_seq) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                + " content_hash = excluded.content_hash, journal_seq = excluded.journal_seq")
        storeFileStatement = try database.prepare(
            "INSERT INTO files (stem, covered) VALUES (?, ?) ON CONFLICT(stem) DO UPDATE SET covered = excluded.covered")
        storeCursorStatement = try database.prepare("UPDATE state SET cursor = ?, in_flight = 0 WHERE id = 1")
        inFlightStatement = try database.prepare("UPDATE state SET in_flight = ? WHERE id = 1")
    }

    /// The journal cursor of the last committed batch.
    func cursor() throws -> Int64? {
        try database.scalarInt("SELECT cursor FROM state WHERE id = 1")
    }

    /// True when a batch was being appended and never committed.
    func isInFlight() throws -> Bool {
        try database.scalarInt("SELECT in_flight FROM state WHERE id = 1") == 1
    }

    /// Covered bytes per file stem.
    func coveredLengths() throws -> [String: Int64] {
        let statement = try database.prepare("SELECT stem, covered FROM files")
        var lengths: [String: Int64] = [:]
        while try statement.step() { lengths[statement.string(0) ?? ""] = statement.int64(1) }
        return lengths
    }

    func lookup(_ id: String) throws -> Entry? {
        lookupStatement.bind(1, id)
        defer { lookupStatement.reset() }
        guard try lookupStatement.step() else { return nil }
        let hash: Int64? = lookupStatement.isNull(0) ? nil : lookupStatement.int64(0)
        return Entry(contentHash: hash, sequence: lookupStatement.int64(1))
    }

    /// Records, durably, whether a batch is being appended.
    func setInFlight(_ inFlight: Bool) throws {
        inFlightStatement.bind(1, Int64(inFlight ? 1 : 0))
        try inFlightStatement.run()
    }

    /// Stores one id's entry (inside a transaction the caller owns).
    func store(_ id: String, _ entry: Entry) throws {
        storeIdStatement.bind(1, id)
        storeIdStatement.bind(2, entry.contentHash)
        storeIdStatement.bind(3, entry.sequence)
        try storeIdStatement.run()
    }

    /// Stores the covered length of a file (inside a transaction the caller owns).
    func store(stem: String, covered: Int64) throws {
        storeFileStatement.bind(1, stem)
        storeFileStatement.bind(2, covered)
        try storeFileStatement.run()
    }

    /// Stores the cursor and clears `in_flight` (inside a transaction the caller owns).
    func store(cursor: Int64?) throws {
        storeCursorStatement.bind(1, cursor)
        try storeCursorStatement.run()
    }

    /// Forgets every id, file and the cursor, for a rebuild from the files.
    func removeAll() throws {
        try database.execute("DELETE FROM ids; DELETE FROM files; UPDATE state SET cursor = NULL, in_flight = 0")
    }
}
