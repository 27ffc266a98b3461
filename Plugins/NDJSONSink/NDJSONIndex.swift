import HealthRouterCore

/// The NDJSON sink's persistent index, `<directory>/.healthrouter-index.sqlite`:
///
/// - `ids`: per id, the content hash of its last sample line (NULL once a tombstone line
///   recorded it) and the journal sequence of that line (0 for lines found in the files
///   rather than written from the journal). Looked up through `id_key`, a 64-bit hash of the
///   id: an index of integers is a third the size of one of UUID strings, which keeps
///   inserting random ids fast; rows whose `id` differs (a hash collision) are skipped;
/// - `files`: per file stem, the bytes the index covers;
/// - `state`: the journal cursor of the last committed batch; `in_flight`, set while a
///   batch is being appended (so that `prepare` knows the bytes beyond `covered` are that
///   batch's, not someone else's); `foreign_lines`, set once lines this sink did not write
///   were indexed (then every batch is checked against `ids`, since a journal entry may
///   repeat such a line).
///
/// `ids` may hold several rows for one id: the last (highest rowid) is its current state.
/// Batches of entries new to the folder append their rows without the `ids_key` index
/// (rows appended in order cost little; index entries for random ids cost a page write
/// each); the index is built again, by one sort, before the next lookup.
///
/// Commits are `synchronous=FULL`: the index is what makes a re-delivery write nothing.
final class NDJSONIndex {
    /// What the index knows about one id.
    struct Entry: Equatable {
        /// The hash of the id's last sample line; nil when its last line is a tombstone.
        var contentHash: Int64?
        var sequence: Int64
        /// The entry's row in `ids`; nil until it is stored.
        var row: Int64? = nil
    }

    static let fileName = ".healthrouter-index.sqlite"
    static let version: Int64 = 2

    let database: SQLiteDatabase
    private let lookupStatement: SQLiteStatement
    private let insertIdStatement: SQLiteStatement
    private let updateIdStatement: SQLiteStatement
    private let storeFileStatement: SQLiteStatement
    private let storeCursorStatement: SQLiteStatement
    private let inFlightStatement: SQLiteStatement

    init(path: String) throws {
        let database = try SQLiteDatabase(path: path)
        self.database = database
        try database.execute("PRAGMA synchronous=FULL")
        // Rows are mostly appended (lookups only on re-delivery, after one sort builds the
        // key index): a small cache does; checkpoint rarely.
        try database.execute("PRAGMA cache_size = -1024")
        try database.execute("PRAGMA wal_autocheckpoint = 16384")
        try database.execute("PRAGMA journal_size_limit = 67108864")
        try database.transaction {
            try database.execute("""
                CREATE TABLE IF NOT EXISTS index_schema (version INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS ids (id_key INTEGER NOT NULL, id TEXT NOT NULL, content_hash INTEGER,
                                                journal_seq INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS files (stem TEXT PRIMARY KEY, covered INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS state (id INTEGER PRIMARY KEY CHECK (id = 1), cursor INTEGER,
                                                  in_flight INTEGER NOT NULL DEFAULT 0,
                                                  foreign_lines INTEGER NOT NULL DEFAULT 0);
                INSERT OR IGNORE INTO state (id) VALUES (1);
                """)
            if let stored = try database.scalarInt("SELECT max(version) FROM index_schema") {
                guard stored <= Self.version else {
                    throw SinkError.misconfigured("\(path): index version \(stored) is newer than this healthrouter's"
                                                    + " (\(Self.version)): upgrade healthrouter")
                }
                if stored == 1 {
                    // Version 1 recorded every id; whether some lines were foreign is unknown: assume so.
                    try database.execute("""
                        ALTER TABLE state ADD COLUMN foreign_lines INTEGER NOT NULL DEFAULT 1;
                        UPDATE index_schema SET version = 2;
                        """)
                }
            } else {
                try database.execute("INSERT INTO index_schema (version) VALUES (\(Self.version))")
            }
        }
        isKeyIndexed = try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'ids_key'") == 1
        lookupStatement = try database.prepare(
            "SELECT rowid, id, content_hash, journal_seq FROM ids WHERE id_key = ? ORDER BY rowid DESC")
        insertIdStatement = try database.prepare(
            "INSERT INTO ids (id_key, id, content_hash, journal_seq) VALUES (?, ?, ?, ?)")
        updateIdStatement = try database.prepare("UPDATE ids SET content_hash = ?, journal_seq = ? WHERE rowid = ?")
        storeFileStatement = try database.prepare(
            "INSERT INTO files (stem, covered) VALUES (?, ?) ON CONFLICT(stem) DO UPDATE SET covered = excluded.covered")
        storeCursorStatement = try database.prepare("UPDATE state SET cursor = ?, in_flight = 0 WHERE id = 1")
        inFlightStatement = try database.prepare("UPDATE state SET in_flight = ? WHERE id = 1")
    }

    /// The ids whose last row (an id may have several) records a deletion. Builds the key index.
    func deletedIds() throws -> Set<String> {
        try buildKeyIndex()
        let statement = try database.prepare("""
            SELECT id FROM ids AS i WHERE content_hash IS NULL
            AND NOT EXISTS (SELECT 1 FROM ids WHERE id_key = i.id_key AND id = i.id AND rowid > i.rowid)
            """)
        var deleted = Set<String>()
        while try statement.step() { if let id = statement.string(0) { deleted.insert(id) } }
        return deleted
    }

    /// What a reader that may not write the folder takes from its index (`NDJSONSink.prepareForReading`).
    struct ReadOnlyView {
        /// The ids whose last indexed row is a tombstone.
        var deleted: Set<String> = []
        /// Bytes the index covers, per file stem.
        var covered: [String: Int64] = [:]
        /// A batch was being appended when its writer stopped: the bytes past `covered` are its.
        var inFlight = false
        /// Another process holds the folder's lock (it writes there now): bytes past `covered` may
        /// be a batch it has not committed, so they are left out as if in flight.
        var writerActive = false
    }

    /// The index at `path` opened to be read only (`SQLiteDatabase.openForReading`): nothing
    /// written, no key index needed (one sort of the rows by id instead).
    static func readOnlyView(of path: String) throws -> ReadOnlyView {
        let database = try SQLiteDatabase.openForReading(path: path)
        if let stored = try database.scalarInt("SELECT max(version) FROM index_schema"), stored > version {
            throw SinkError.misconfigured("\(path): index version \(stored) is newer than this healthrouter's (\(version)): "
                                            + "upgrade healthrouter")
        }
        var view = ReadOnlyView()
        // One read transaction: one snapshot of the three, while a writer may commit meanwhile.
        try database.execute("BEGIN")
        defer { try? database.execute("COMMIT") }
        let deleted = try database.prepare(
            "SELECT id FROM ids WHERE rowid IN (SELECT max(rowid) FROM ids GROUP BY id) AND content_hash IS NULL")
        while try deleted.step() { if let id = deleted.string(0) { view.deleted.insert(id) } }
        view.covered = try coveredLengths(in: database)
        view.inFlight = try isInFlight(database)
        return view
    }

    /// The journal cursor of the last committed batch.
    func cursor() throws -> Int64? {
        try database.scalarInt("SELECT cursor FROM state WHERE id = 1")
    }

    /// Whether lines this sink did not write were indexed.
    func hasForeignLines() throws -> Bool {
        try database.scalarInt("SELECT foreign_lines FROM state WHERE id = 1") == 1
    }

    /// Records that lines this sink did not write were indexed.
    func markForeignLines() throws {
        try database.execute("UPDATE state SET foreign_lines = 1 WHERE id = 1")
    }

    /// Whether `ids_key` exists, as this connection last made it.
    private(set) var isKeyIndexed = false

    /// Builds `ids_key` when it is missing (one sort of every row): `lookup` needs it.
    func buildKeyIndex() throws {
        guard !isKeyIndexed else { return }
        try database.execute("CREATE INDEX IF NOT EXISTS ids_key ON ids (id_key)")
        isKeyIndexed = true
    }

    /// Drops `ids_key` before rows are appended without lookups.
    func dropKeyIndex() throws {
        guard isKeyIndexed else { return }
        try database.execute("DROP INDEX IF EXISTS ids_key")
        isKeyIndexed = false
    }

    /// True when a batch was being appended and never committed.
    func isInFlight() throws -> Bool { try Self.isInFlight(database) }

    private static func isInFlight(_ database: SQLiteDatabase) throws -> Bool {
        try database.scalarInt("SELECT in_flight FROM state WHERE id = 1") == 1
    }

    /// Covered bytes per file stem.
    func coveredLengths() throws -> [String: Int64] { try Self.coveredLengths(in: database) }

    private static func coveredLengths(in database: SQLiteDatabase) throws -> [String: Int64] {
        let statement = try database.prepare("SELECT stem, covered FROM files")
        var lengths: [String: Int64] = [:]
        while try statement.step() { lengths[statement.string(0) ?? ""] = statement.int64(1) }
        return lengths
    }

    /// The current state of `id` (its last row). Call `buildKeyIndex()` first.
    func lookup(_ id: String) throws -> Entry? {
        lookupStatement.bind(1, Self.key(id))
        defer { lookupStatement.reset() }
        while try lookupStatement.step() {
            guard lookupStatement.string(1) == id else { continue }
            let hash: Int64? = lookupStatement.isNull(2) ? nil : lookupStatement.int64(2)
            return Entry(contentHash: hash, sequence: lookupStatement.int64(3), row: lookupStatement.int64(0))
        }
        return nil
    }

    /// Records, durably, whether a batch is being appended.
    func setInFlight(_ inFlight: Bool) throws {
        inFlightStatement.bind(1, Int64(inFlight ? 1 : 0))
        try inFlightStatement.run()
    }

    /// Stores one id's entry (inside a transaction the caller owns): updates its row when
    /// `entry.row` is set (it came from `lookup`), inserts one otherwise.
    func store(_ id: String, _ entry: Entry) throws {
        if let row = entry.row {
            updateIdStatement.bind(1, entry.contentHash)
            updateIdStatement.bind(2, entry.sequence)
            updateIdStatement.bind(3, row)
            try updateIdStatement.run()
        } else {
            insertIdStatement.bind(1, Self.key(id))
            insertIdStatement.bind(2, id)
            insertIdStatement.bind(3, entry.contentHash)
            insertIdStatement.bind(4, entry.sequence)
            try insertIdStatement.run()
        }
    }

    /// The 64-bit hash `ids` is looked up by.
    static func key(_ id: String) -> Int64 {
        var copy = id
        return copy.withUTF8 { NDJSONLineHash.hash(UnsafeRawBufferPointer($0)) }
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
