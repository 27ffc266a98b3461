import Foundation

/// The durable local journal (DESIGN.md §2): a SQLite database in WAL mode under the
/// state directory. Every accepted sample or tombstone is appended with a strictly
/// increasing sequence number before its source is told it was accepted.
///
/// Identity: a sample is a duplicate when its id is known with the same content; a
/// changed sample under a known id becomes a new entry; a sample whose fingerprint
/// matches a sample stored under another id is recorded as that sample's alias
/// (the first id wins), so a tombstone for either id deletes it everywhere.
///
/// One `Journal` is one connection: use it from one thread. Several connections
/// (one writer, a reader per sink worker) may be open on the same file at once.
public final class Journal {
    public let path: String
    let database: SQLiteDatabase
    private var writer = ByteWriter(capacity: 1024)

    private lazy var lookupId = try! database.prepare("SELECT content_hash FROM sample_ids WHERE id = ?1")
    private lazy var insertId = try! database.prepare(
        "INSERT INTO sample_ids(id, content_hash, seq) VALUES (?1, ?2, ?3) ON CONFLICT(id) DO UPDATE SET content_hash = excluded.content_hash, seq = excluded.seq")
    private lazy var lookupFingerprint = try! database.prepare("SELECT id FROM fingerprints WHERE fingerprint = ?1")
    private lazy var insertFingerprint = try! database.prepare("INSERT OR IGNORE INTO fingerprints(fingerprint, id) VALUES (?1, ?2)")
    private lazy var insertAlias = try! database.prepare("INSERT OR IGNORE INTO aliases(alias, id) VALUES (?1, ?2)")
    private lazy var aliasesOf = try! database.prepare("SELECT alias FROM aliases WHERE id = ?1 UNION SELECT id FROM aliases WHERE alias = ?1")
    private lazy var lookupDeleted = try! database.prepare("SELECT 1 FROM deleted_ids WHERE id = ?1")
    private lazy var insertDeleted = try! database.prepare("INSERT OR IGNORE INTO deleted_ids(id, seq) VALUES (?1, ?2)")
    private lazy var insertEntry = try! database.prepare(
        "INSERT INTO entries(seq, source, type, received_at, payload) VALUES (?1, ?2, ?3, ?4, ?5)")
    private lazy var readEntries = try! database.prepare(
        "SELECT seq, source, type, payload FROM entries WHERE seq > ?1 ORDER BY seq LIMIT ?2")

    /// Opens (creating if needed) `<stateDirectory>/journal.sqlite`.
    public init(stateDirectory: String) throws {
        path = (stateDirectory as NSString).appendingPathComponent("journal.sqlite")
        database = try SQLiteDatabase(path: path)
        try database.execute("PRAGMA cache_size=-32768")
        try database.execute("""
            CREATE TABLE IF NOT EXISTS entries(
                seq INTEGER PRIMARY KEY,
                source TEXT NOT NULL,
                type TEXT,
                received_at INTEGER NOT NULL,
                payload BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS sample_ids(id TEXT PRIMARY KEY, content_hash INTEGER NOT NULL, seq INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS fingerprints(fingerprint TEXT PRIMARY KEY, id TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS aliases(alias TEXT PRIMARY KEY, id TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS aliases_by_id ON aliases(id);
            CREATE TABLE IF NOT EXISTS deleted_ids(id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS cursors(
                sink TEXT PRIMARY KEY,
                seq INTEGER NOT NULL,
                written INTEGER NOT NULL DEFAULT 0,
                updated_at INTEGER,
                last_error TEXT);
            CREATE TABLE IF NOT EXISTS dead_letters(
                sink TEXT NOT NULL,
                seq INTEGER NOT NULL,
                reason TEXT NOT NULL,
                at INTEGER NOT NULL,
                PRIMARY KEY(sink, seq));
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);
            """)
    }

    // MARK: - Appending

    /// Appends `items` from the source named `source` in one transaction and returns
    /// what was new. Samples must be normalised (non-empty ids).
    @discardableResult
    public func append(_ items: [HealthItem], source: String, receivedAt: Date = Date()) throws -> AppendResult {
        let received = Int64(receivedAt.timeIntervalSince1970 * 1000)
        return try database.transaction {
            var result = AppendResult()
            var next = try head() + 1
            for item in items {
                switch item {
                case .sample(let sample):
                    guard try admit(sample, sequence: next, result: &result) else { continue }
                case .tombstone(let tombstone):
                    guard let expanded = try admit(tombstone, sequence: next, result: &result) else { continue }
                    writer.reset()
                    SampleCodec.encode(.tombstone(expanded), into: &writer)
                }
                try writeEntry(sequence: next, source: source, type: item.sampleType, received: received)
                if result.firstSequence == nil { result.firstSequence = next }
                result.lastSequence = next
                next += 1
            }
            if let last = result.lastSequence {
                try database.execute("INSERT INTO meta(key, value) VALUES ('last_seq', \(last)) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            }
            return result
        }
    }

    /// Decides whether `sample` becomes an entry; leaves its encoding in `writer` when it does.
    private func admit(_ sample: Sample, sequence: Int64, result: inout AppendResult) throws -> Bool {
        precondition(!sample.id.isEmpty, "samples reach the journal normalised, with an id")
        writer.reset()
        SampleCodec.encode(.sample(sample), into: &writer)
        let hash = ContentHash.of(writer.bytes)

        lookupId.bind(1, sample.id)
        if try lookupId.step() {
            let stored = lookupId.int64(0)
            lookupId.reset()
            if stored == hash {
                result.duplicates[sample.kind, default: 0] += 1
                return false
            }
            result.changed += 1
        } else {
            lookupId.reset()
            // Not known by its id: is the same reading known under another id?
            let fingerprintId = Fingerprint.id(of: sample)
            if fingerprintId != sample.id {
                if let existing = try knownId(forFingerprint: fingerprintId) {
                    insertAlias.bind(1, sample.id)
                    insertAlias.bind(2, existing)
                    try insertAlias.run()
                    result.aliased += 1
                    result.duplicates[sample.kind, default: 0] += 1
                    return false
                }
                insertFingerprint.bind(1, fingerprintId)
                insertFingerprint.bind(2, sample.id)
                try insertFingerprint.run()
            } else {
                // A fingerprint-derived id: a sample that arrived earlier with its own id may hold this reading.
                lookupFingerprint.bind(1, fingerprintId)
                if try lookupFingerprint.step(), let existing = lookupFingerprint.string(0) {
                    lookupFingerprint.reset()
                    insertAlias.bind(1, sample.id)
                    insertAlias.bind(2, existing)
                    try insertAlias.run()
                    result.aliased += 1
                    result.duplicates[sample.kind, default: 0] += 1
                    return false
                }
                lookupFingerprint.reset()
            }
            result.new[sample.kind, default: 0] += 1
        }
        insertId.bind(1, sample.id)
        insertId.bind(2, hash)
        insertId.bind(3, sequence)
        try insertId.run()
        return true
    }

    /// The id a reading with this fingerprint id is stored under, if any: the
    /// fingerprint id itself (a sample that had none of its own), or the own id of
    /// the first sample that brought this reading.
    private func knownId(forFingerprint fingerprintId: String) throws -> String? {
        lookupId.bind(1, fingerprintId)
        let derived = try lookupId.step()
        lookupId.reset()
        if derived { return fingerprintId }
        lookupFingerprint.bind(1, fingerprintId)
        defer { lookupFingerprint.reset() }
        return try lookupFingerprint.step() ? lookupFingerprint.string(0) : nil
    }

    /// The tombstone to store (its ids not tombstoned before, with their aliases), or nil when nothing is new.
    private func admit(_ tombstone: Tombstone, sequence: Int64, result: inout AppendResult) throws -> Tombstone? {
        var ids: [String] = []
        var seen = Set<String>()
        for id in tombstone.ids where seen.insert(id).inserted {
            lookupDeleted.bind(1, id)
            let known = try lookupDeleted.step()
            lookupDeleted.reset()
            guard !known else { continue }
            insertDeleted.bind(1, id)
            insertDeleted.bind(2, sequence)
            try insertDeleted.run()
            ids.append(id)
            result.deletedIds += 1
            // An alias's other names must go too, wherever a sink stored them.
            aliasesOf.bind(1, id)
            while try aliasesOf.step() {
                if let other = aliasesOf.string(0), seen.insert(other).inserted { ids.append(other) }
            }
            aliasesOf.reset()
        }
        return ids.isEmpty ? nil : Tombstone(ids: ids, userId: tombstone.userId)
    }

    private func writeEntry(sequence: Int64, source: String, type: String?, received: Int64) throws {
        insertEntry.bind(1, sequence)
        insertEntry.bind(2, source)
        insertEntry.bind(3, type)
        insertEntry.bind(4, received)
        insertEntry.bind(5, blob: writer.bytes)
        try insertEntry.run()
    }

    // MARK: - Reading

    /// The highest sequence ever written (0 when empty).
    public func head() throws -> Int64 {
        max(try database.scalarInt("SELECT max(seq) FROM entries") ?? 0,
            try database.scalarInt("SELECT value FROM meta WHERE key = 'last_seq'") ?? 0)
    }

    /// The lowest sequence still stored (nil when empty): entries before it were pruned.
    public func oldestRetained() throws -> Int64? {
        try database.scalarInt("SELECT min(seq) FROM entries")
    }

    /// Up to `limit` entries after `sequence`, in order.
    public func entries(after sequence: Int64, limit: Int) throws -> [StoredEntry] {
        readEntries.bind(1, sequence)
        readEntries.bind(2, Int64(limit))
        defer { readEntries.reset() }
        var out: [StoredEntry] = []
        out.reserveCapacity(limit)
        while try readEntries.step() {
            out.append(StoredEntry(sequence: readEntries.int64(0), source: readEntries.string(1) ?? "",
                                   type: readEntries.isNull(2) ? nil : readEntries.string(2),
                                   payload: readEntries.blob(3) ?? []))
        }
        return out
    }

    /// Entries after `sequence` whose type is in `types` (nil: any) plus every tombstone: for lag figures.
    public func countEntries(after sequence: Int64) throws -> Int64 {
        let statement = try database.prepare("SELECT count(*) FROM entries WHERE seq > ?1")
        statement.bind(1, sequence)
        try statement.step()
        return statement.int64(0)
    }

    // MARK: - Cursors and dead letters

    /// The core's cursor for `sink` (nil: never written).
    public func cursor(sink: String) throws -> Int64? {
        let statement = try database.prepare("SELECT seq FROM cursors WHERE sink = ?1")
        statement.bind(1, sink)
        return try statement.step() ? statement.int64(0) : nil
    }

    /// Moves `sink`'s cursor to `sequence`, adding `written` rows to its count and clearing its last error.
    public func setCursor(sink: String, to sequence: Int64, written: Int) throws {
        let statement = try database.prepare("""
            INSERT INTO cursors(sink, seq, written, updated_at, last_error) VALUES (?1, ?2, ?3, ?4, NULL)
            ON CONFLICT(sink) DO UPDATE SET seq = excluded.seq, written = cursors.written + excluded.written,
                updated_at = excluded.updated_at, last_error = NULL
            """)
        statement.bind(1, sink)
        statement.bind(2, sequence)
        statement.bind(3, Int64(written))
        statement.bind(4, Int64(Date().timeIntervalSince1970 * 1000))
        try statement.run()
    }

    /// Records the last error of `sink` (shown by `status`), keeping its cursor.
    public func setLastError(sink: String, _ message: String) throws {
        let statement = try database.prepare("""
            INSERT INTO cursors(sink, seq, updated_at, last_error) VALUES (?1, 0, ?2, ?3)
            ON CONFLICT(sink) DO UPDATE SET last_error = excluded.last_error, updated_at = excluded.updated_at
            """)
        statement.bind(1, sink)
        statement.bind(2, Int64(Date().timeIntervalSince1970 * 1000))
        statement.bind(3, message)
        try statement.run()
    }

    /// Parks the entry `sequence` as a dead letter of `sink` with the reason it was refused.
    public func addDeadLetter(sink: String, sequence: Int64, reason: String) throws {
        let statement = try database.prepare(
            "INSERT OR REPLACE INTO dead_letters(sink, seq, reason, at) VALUES (?1, ?2, ?3, ?4)")
        statement.bind(1, sink)
        statement.bind(2, sequence)
        statement.bind(3, reason)
        statement.bind(4, Int64(Date().timeIntervalSince1970 * 1000))
        try statement.run()
    }

    /// The dead letters of `sink`: sequence and reason, oldest first.
    public func deadLetters(sink: String) throws -> [(sequence: Int64, reason: String)] {
        let statement = try database.prepare("SELECT seq, reason FROM dead_letters WHERE sink = ?1 ORDER BY seq")
        statement.bind(1, sink)
        var out: [(Int64, String)] = []
        while try statement.step() { out.append((statement.int64(0), statement.string(1) ?? "")) }
        return out
    }

    /// Cursor row of every sink the journal has seen.
    public func sinkStates() throws -> [SinkState] {
        let statement = try database.prepare("""
            SELECT c.sink, c.seq, c.written, c.updated_at, c.last_error,
                   (SELECT count(*) FROM dead_letters d WHERE d.sink = c.sink)
            FROM cursors c ORDER BY c.sink
            """)
        var out: [SinkState] = []
        while try statement.step() {
            out.append(SinkState(sink: statement.string(0) ?? "", cursor: statement.int64(1), written: statement.int64(2),
                                 updatedAt: statement.isNull(3) ? nil : statement.int64(3),
                                 lastError: statement.string(4), deadLetters: statement.int64(5)))
        }
        return out
    }

    // MARK: - Pruning

    /// Deletes entries every sink in `sinks` has passed and that are older than `retainSeconds`
    /// (nil: keep forever). Identities stay, so a pruned sample is still recognised.
    @discardableResult
    public func prune(sinks: [String], retainSeconds: Double?, now: Date = Date()) throws -> Int {
        guard let retainSeconds else { return 0 }
        var floor = try head()
        for sink in sinks { floor = min(floor, try cursor(sink: sink) ?? 0) }
        let cutoff = Int64((now.timeIntervalSince1970 - retainSeconds) * 1000)
        let statement = try database.prepare("DELETE FROM entries WHERE seq <= ?1 AND received_at < ?2")
        statement.bind(1, floor)
        statement.bind(2, cutoff)
        try statement.run()
        return database.changes
    }

    /// Stored sample entries grouped by type and source, for finding what no route selects.
    public func entryCountsByTypeAndSource() throws -> [(type: String, source: String, count: Int64)] {
        let statement = try database.prepare(
            "SELECT type, source, count(*) FROM entries WHERE type IS NOT NULL GROUP BY type, source")
        var out: [(String, String, Int64)] = []
        while try statement.step() { out.append((statement.string(0) ?? "", statement.string(1) ?? "", statement.int64(2))) }
        return out
    }

    /// Aggregate counts for `status`.
    public func counts() throws -> (entries: Int64, samples: Int64, deleted: Int64) {
        (try database.scalarInt("SELECT count(*) FROM entries") ?? 0,
         try database.scalarInt("SELECT count(*) FROM sample_ids") ?? 0,
         try database.scalarInt("SELECT count(*) FROM deleted_ids") ?? 0)
    }
}

extension HealthItem {
    /// The type of a sample, nil for a tombstone.
    var sampleType: String? {
        if case .sample(let s) = self { return s.type }
        return nil
    }
}
