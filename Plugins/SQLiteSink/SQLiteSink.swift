import Foundation
import HealthRouterCore

/// The `sqlite` sink: the embedded default store, one SQLite file with a table per kind of
/// sample, meant to be queried with `sqlite3` (schema and conventions in the README).
///
/// - `prepare()` opens the file (WAL, `synchronous=FULL`), creates what is missing and
///   returns the cursor stored in `sink_cursor`.
/// - `write(_:cursor:)` runs one transaction: every sample upserted by id (a row is written
///   only when something in it changed; a changed workout, correlation or HRV sample gets its
///   child rows anew), every tombstone deletes its ids from every table and records them in
///   `deleted_samples`, and `sink_cursor` is set to `cursor`, in the same transaction.
/// - Loading a large history into empty `samples` and `sleep_stages` tables (entries new to the
///   store, each the first of its id in the journal: an import into a new store), the sink drops
///   their id and time indexes and inserts plainly; it builds them again, one sort each, when it
///   has caught up, before any other write, at `close()`, or at the next `prepare()` after a kill.
///   About a third of a 1M-record import's time went to inserting random UUIDs into those indexes.
///   While such a load runs, the store's journal is a rollback journal (`TRUNCATE`,
///   `synchronous=FULL`) instead of WAL: the pages a batch appends are written once, into the
///   store, where WAL writes every page twice (into the WAL, then into the store at a checkpoint).
///   Where another connection keeps the store in WAL (it is open elsewhere), the load runs in WAL.
/// - Data SQLite refuses (a `CHECK` such as `end_at >= start_at`) and instants outside the
///   years 0000–9999 throw `SinkError.rejected`; any other failure `SinkError.unavailable`.
public final class SQLiteSink: Sink {
    public struct Configuration: Decodable, Sendable {
        /// The database file; created with its directory when missing. A leading `~` is the
        /// context's home directory: the sink's `configuration` holds the path expanded.
        public var path: String

        public init(path: String) {
            self.path = path
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case path
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            // SQLite would open "" as a temporary database, gone at the end of the run.
            path = try c.decodeNonEmptyString(forKey: .path, purpose: "the SQLite file to write, e.g. ./healthrouter-data/health.sqlite")
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private(set) var database: SQLiteDatabase?
    private var rows: SQLiteSinkRowWriter?
    /// The cursor in `sink_cursor` (0: none), as of the last commit.
    private var storedCursor: Int64 = 0
    /// Whether the bulk tables' id indexes can be dropped (a store created before they existed
    /// has its ids as primary keys), and whether they are dropped now (nil: look again).
    private var canLoadInBulk = false
    private var loadingInBulk: Bool?
    /// Whether this sink switched the store to a rollback journal for a bulk load.
    private var inRollbackJournal = false
    /// The file `prepare()` opened: a store deleted or replaced meanwhile (`rm health.sqlite*`
    /// while the daemon runs) would take every later write into a file nobody can open again.
    private var openedFile: FileIdentity?
    /// Whether `prepareForReading()` opened the store (a read back's: `reconnect()` opens it again).
    private var openedForReading = false

    /// The fewest entries a batch must hold to start a bulk load (a push of a few samples into an
    /// empty store is not worth dropping indexes for).
    static let bulkMinimum = 1000

    /// The page cache (`PRAGMA cache_size`, negative: KiB) for upserts, and while loading in bulk.
    static let upsertCacheSize = -8192
    static let bulkCacheSize = -2048

    /// The sink's name in the config, for the commands a message gives.
    let name: String

    public init(configuration: Configuration, context: PluginContext) {
        var expanded = configuration
        expanded.path = context.expandingTilde(configuration.path)
        self.configuration = expanded
        self.name = context.name
        self.logger = context.logger.with("sink", context.name)
    }

    /// Whether `prepare()` created the tables (`Sink.createdItsStore`).
    public private(set) var createdItsStore = false

    public func prepare() throws -> Int64? {
        if let problem = StorePath.fileProblem(configuration.path, key: "path")
            ?? StorePath.folderProblem((configuration.path as NSString).deletingLastPathComponent, key: "path",
                                       for: configuration.path) {
            throw SinkError.misconfigured(problem)
        }
        // A path another user could make a file of their choosing (a link they made, a folder every
        // user may write): this process would write the health data there (as root, anywhere).
        if let problem = StorePath.othersControlProblem(configuration.path, key: "path") {
            throw SinkError.misconfigured(problem)
        }
        // A file this process may not write, in a folder it may (SQLite would open it read-only and
        // leave -wal and -shm files of this process's beside it): no retry writes it.
        if FileManager.default.fileExists(atPath: configuration.path) && access(configuration.path, W_OK) != 0 {
            if errno == EROFS { throw SinkError.misconfigured(Self.onReadOnlyMount(configuration.path)) }
            throw SinkError.misconfigured("\(configuration.path): this process may not write the file: fix its owner or "
                                            + "permissions, or set `path` to a store it may write")
        }
        do {
            let directory = (configuration.path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                do {
                    // Its owner's alone, as the state directory (the store's file follows the umask).
                    try StorePath.createPrivateFolder(directory)
                } catch {
                    throw StorePath.creationFailure(directory, key: "path", error: error)
                }
            }
            // A new store in a folder this process may not write (another user's, a read-only mount):
            // SQLite would say "unable to open database file", which reads like a store that is down.
            let folder = directory.isEmpty ? "." : directory
            if !FileManager.default.fileExists(atPath: configuration.path) && access(folder, W_OK | X_OK) != 0 {
                if errno == EROFS { throw SinkError.misconfigured(Self.onReadOnlyMount(configuration.path)) }
                throw SinkError.misconfigured("\(configuration.path) cannot be created: this process may not write the folder "
                                                + "\(folder): fix its owner or permissions, or set `path` to a place it may write")
            }
            let database = try SQLiteDatabase(path: configuration.path)
            // A larger page cache keeps more of the id indexes in memory for upserts, which land
            // at random in them (a bulk load, which appends, sets SQLite's default 2 MB while it
            // runs). Rarer checkpoints write each page of those indexes less often.
            try database.execute("PRAGMA cache_size = \(Self.upsertCacheSize)")
            // Each commit is on the disk when `write` returns (WAL's NORMAL survives a killed
            // process, not a power cut): the journal prunes what a sink's cursor passed, and a
            // `migrate` or `backfill` resumes after it, so a batch lost after its commit would be
            // lost for good.
            try database.execute("PRAGMA synchronous = FULL")
            try database.execute("PRAGMA wal_autocheckpoint = 16384")
            try database.execute("PRAGMA journal_size_limit = 67108864")
            createdItsStore = try database.scalarInt(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'samples'") == 0
            try SQLiteSinkSchema.create(in: database)
            rows = try SQLiteSinkRowWriter(database: database)
            self.database = database
            openedFile = FileIdentity(path: configuration.path)
            let cursor = try database.scalarInt("SELECT journal_seq FROM sink_cursor WHERE id = 1")
            storedCursor = cursor ?? 0
            canLoadInBulk = try SQLiteSinkSchema.bulkIdIndexes.allSatisfy {
                try !SQLiteSinkSchema.hasPrimaryKeyIndex($0.table, in: database)
            }
            loadingInBulk = false
            logger.debug("opened \(configuration.path)", numbers: cursor.map { [("cursor", LogNumber($0))] } ?? [])
            return cursor ?? 0
        } catch let error as SinkError {
            throw error
        } catch let error as SQLiteError where error.code == 26 {
            throw SinkError.misconfigured("\(configuration.path) is not a SQLite database: set `path` to a new file, "
                                        + "or to a store healthrouter made")
        } catch let error as SQLiteError where error.code & 0xff == 8 && error.code != 1032 {
            // SQLITE_READONLY: a file or folder this process may not write; no retry changes that.
            throw SinkError.misconfigured(error.description)
        } catch let error as SQLiteError {
            throw SinkError.unavailable(Self.problem(error))
        } catch {
            throw SinkError.unavailable("\(configuration.path): \(error)")
        }
    }

    /// Whether `error` says the file is damaged: SQLITE_CORRUPT, or SQLITE_NOTADB met after the
    /// open (pages past the header damaged). No retry mends it.
    static func isDamage(_ error: SQLiteError) -> Bool {
        [11, 26].contains(error.code & 0xFF)
    }

    /// The device, inode, size and modification time of the file at `path` (nil when it cannot be
    /// stat'ed): different when another file was put there or it was written to.
    static func fileState(_ path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
    }

    /// What a failure of the store's file says: SQLite's own words with `SQLiteError`'s advice,
    /// and for a damaged file what to do with a sink's store (a write or an open retries it as any
    /// failure, as the file may be moved away meanwhile; a read back fails at once).
    static func problem(_ error: SQLiteError) -> String {
        switch error.code & 0xFF {
        case 11, 26:
            // SQLITE_CORRUPT, SQLITE_NOTADB (met after the open: pages past the header damaged).
            error.description + "; the file is damaged (a disk fault, or a copy taken while it was written): move it away "
                + "and healthrouter makes a new one, filled from the journal (`healthrouter backfill SINK --from` an export "
                + "or dump brings back what the journal no longer retains); `sqlite3 FILE .recover` saves what the old one holds"
        default:
            error.description
        }
    }

    /// `path` is on a read-only file system: what to do.
    private static func onReadOnlyMount(_ path: String) -> String {
        "\(path) is on a read-only file system: " + StorePath.readOnlyMountAdvice(key: "path")
    }

    /// Opens the store to be read only (`ReadableSink`): as `prepare()` when this process may write
    /// the file and its folder (SQLite keeps its `-wal` and `-shm` files beside it), else with
    /// `SQLiteDatabase.openForReading`, tables as they are, creating nothing; a store a newer
    /// healthrouter wrote is refused as `prepare()` refuses it.
    public func prepareForReading() throws {
        openedForReading = true
        let path = configuration.path
        let directory = (path as NSString).deletingLastPathComponent
        if access(path, W_OK) == 0 && access(directory.isEmpty ? "." : directory, W_OK) == 0 {
            _ = try prepare()
            return
        }
        do {
            let database = try SQLiteDatabase.openForReading(path: path)
            if let stored = try? database.scalarInt("SELECT max(version) FROM healthrouter_schema"),
               stored > SQLiteSinkSchema.version {
                throw SinkError.misconfigured("\(path) has schema version \(stored), written by a newer healthrouter; this one "
                                                + "reads version \(SQLiteSinkSchema.version): upgrade healthrouter")
            }
            self.database = database
            logger.debug("opened \(path) read-only")
        } catch let error as SQLiteError where error.code == 26 {
            throw SinkError.misconfigured("\(path) is not a SQLite database: set `path` to a store healthrouter made")
        } catch let error as SQLiteError where error.code & 0xff == 14 || error.code & 0xff == 8 {
            // SQLITE_CANTOPEN, SQLITE_READONLY (a journal a crashed writer left): no retry opens it.
            throw SinkError.misconfigured(error.description + " (opened read-only: this process may not write \(path) or its folder)")
        } catch let error as SQLiteError {
            throw SinkError.unavailable(error.description + " (opened read-only: this process may not write \(path) or its folder)")
        }
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        guard let database, let rows else {
            throw SinkError.unavailable("\(configuration.path): write before prepare")
        }
        // A failed write makes the worker open the sink again: a new file at the path, with no
        // cursor, which the journal fills again (its warning says so).
        if let openedFile, !openedFile.isStill(at: configuration.path) {
            throw SinkError.unavailable("\(configuration.path) was deleted or replaced while healthrouter wrote it: "
                                            + "opening it again")
        }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        do {
            try database.transaction {
                rows.insertsNewIds = try planBulkLoad(entries, cursor: cursor, in: database)
                // Entries are read in place: a copy of each would retain every string of its sample.
                try entries.withUnsafeBufferPointer { entries in
                    for position in entries.indices {
                        switch entries[position].item {
                        case .sample(let sample):
                            try rows.write(sample, sequence: entries[position].sequence)
                        case .tombstone(let tombstone):
                            try rows.delete(tombstone, sequence: entries[position].sequence, deletedAt: now)
                        }
                    }
                }
                try rows.storeCursor(cursor)
            }
            storedCursor = cursor
            settleJournalMode(database)
        } catch {
            // The transaction rolled back, an index dropped in it with it.
            loadingInBulk = nil
            if let error = error as? SQLiteError {
                if error.isDataError { throw SinkError.rejected(error.description) }
                // SQLITE_READONLY: the file turned read-only (or was opened so); no retry writes it.
                // (Not SQLITE_READONLY_DBMOVED: the file was replaced while open; opened anew, it is written.)
                throw error.code & 0xff == 8 && error.code != 1032
                    ? SinkError.misconfigured(error.description) : SinkError.unavailable(Self.problem(error))
            }
            throw error
        }
    }

    /// Whether `entries` are inserted plainly into the bulk tables: yes when every one is a sample
    /// new to the store (past the stored cursor) and the first of its id, and the bulk tables
    /// either have their id and time indexes dropped already or are empty (then they are dropped here, for
    /// a batch of `bulkMinimum` entries or more). Otherwise the indexes are built again first.
    private func planBulkLoad(_ entries: [JournalEntry], cursor: Int64, in database: SQLiteDatabase) throws -> Bool {
        guard canLoadInBulk, let first = entries.first else { return false }
        let qualifies = first.sequence > storedCursor && cursor > storedCursor && entries.areAllFirstOfTheirId
        let dropped = try isLoadingInBulk(database)
        if dropped {
            if qualifies { return true }
            try buildDroppedIndexes(database)
            return false
        }
        guard qualifies, entries.count >= Self.bulkMinimum else { return false }
        for table in SQLiteSinkSchema.bulkIdIndexes {
            guard try database.scalarInt("SELECT EXISTS (SELECT 1 FROM \(table.table))") == 0 else { return false }
        }
        for table in SQLiteSinkSchema.bulkLoadIndexes { try database.execute("DROP INDEX IF EXISTS \(table.index)") }
        try database.execute("PRAGMA cache_size = \(Self.bulkCacheSize)")
        loadingInBulk = true
        logger.debug("loading into empty tables: their id and time indexes are built when the load ends")
        return true
    }

    private func isLoadingInBulk(_ database: SQLiteDatabase) throws -> Bool {
        if let loadingInBulk { return loadingInBulk }
        let present = try database.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ("
                + SQLiteSinkSchema.bulkLoadIndexes.map { "'\($0.index)'" }.joined(separator: ", ") + ")") ?? 0
        let dropped = canLoadInBulk && present < SQLiteSinkSchema.bulkLoadIndexes.count
        loadingInBulk = dropped
        return dropped
    }

    /// Builds the bulk tables' id and time indexes (inside the caller's transaction). Entries that are the
    /// first of their id cannot share one; rows sharing an id anyway (another program wrote them
    /// during the load) are reported rather than guessed between.
    private func buildDroppedIndexes(_ database: SQLiteDatabase) throws {
        let started = Date()
        // The sort may use a second core: when a load ends, the rest of the pipeline is idle.
        try database.execute("PRAGMA threads = 2")
        defer { try? database.execute("PRAGMA threads = 0") }
        for table in SQLiteSinkSchema.bulkLoadIndexes {
            do {
                try database.execute(table.sql)
            } catch let error as SQLiteError where error.isDataError {
                let shared = try database.scalarInt(
                    "SELECT count(*) FROM (SELECT id FROM \(table.table) GROUP BY id HAVING count(*) > 1)") ?? 0
                throw SinkError.unavailable(
                    "\(configuration.path): cannot build the unique index on \(table.table)(id): \(shared) ids have more "
                        + "than one row (\(error)); another program wrote into the table while healthrouter loaded it. "
                        + "Delete the extra rows (keep the one with the highest journal_seq) or the file, then run again")
            }
        }
        loadingInBulk = false
        try database.execute("PRAGMA cache_size = \(Self.upsertCacheSize)")
        logger.debug("built the indexes the load dropped", numbers: [("seconds", LogNumber(Date().timeIntervalSince(started), places: 1))])
    }

    /// Builds the indexes a bulk load dropped, so the store is complete while the worker waits.
    public func caughtUp() throws {
        guard let database, try isLoadingInBulk(database) else { return }
        do {
            try database.transaction { try buildDroppedIndexes(database) }
            settleJournalMode(database)
        } catch {
            loadingInBulk = nil
            if let error = error as? SQLiteError { throw SinkError.unavailable(Self.problem(error)) }
            throw error
        }
    }

    /// Puts the store in the journal mode its state calls for (between transactions: SQLite
    /// changes modes only there): a rollback journal while a bulk load runs, WAL otherwise. Best
    /// effort: a mode SQLite refuses to change (another connection has the store open in WAL) costs
    /// speed, not data; the next batch tries again, and `SQLiteDatabase` opens every store in WAL.
    private func settleJournalMode(_ database: SQLiteDatabase) {
        let bulk = loadingInBulk == true
        guard bulk || inRollbackJournal else { return }
        do {
            let current = try database.scalarText("PRAGMA journal_mode")
            if bulk, current == "wal" {
                // Each commit syncs the rollback journal before it overwrites a page of the store
                // (`synchronous=FULL`, as in WAL).
                do {
                    inRollbackJournal = try database.scalarText("PRAGMA journal_mode = TRUNCATE") == "truncate"
                } catch {
                    logger.debug("the load runs in WAL", [("reason", "\(error)")])
                }
            } else if !bulk {
                if current != "wal", try database.scalarText("PRAGMA journal_mode = WAL") != "wal" { return }
                inRollbackJournal = false
            }
        } catch {
            logger.debug("journal mode unchanged", [("reason", "\(error)")])
        }
    }

    /// For a store opened by `prepareForReading()`, opens it again, a connection of its own: a
    /// read back that failed on a file copied over meanwhile (`readBack`) would meet the pages its
    /// old connection kept, and fail again. A store opened to be written needs nothing.
    public func reconnect() throws {
        guard openedForReading else { return }
        rows = nil
        database = nil
        try prepareForReading()
    }

    public func close() {
        // Best effort: the next prepare() builds what is still missing.
        try? caughtUp()
        rows = nil
        database = nil
    }
}
