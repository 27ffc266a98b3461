import Foundation

/// The durable local journal (DESIGN.md §2): a SQLite database in WAL mode under the
/// state directory. Every accepted sample or tombstone is appended with a strictly
/// increasing sequence number before its source is told it was accepted.
///
/// Identity: a sample is a duplicate when its id is known with the same content and
/// start; a changed sample under a known id becomes a new entry; a sample whose fingerprint
/// matches a sample stored under another id is recorded as that sample's alias
/// (the first id wins), so a tombstone for either id deletes it everywhere.
///
/// One `Journal` is one connection: use it from one thread. Several connections
/// (one writer, a reader per sink worker) may be open on the same file at once.
public final class Journal {
    public let path: String
    let database: SQLiteDatabase
    private var writer = ByteWriter(capacity: 1024)
    /// The offset-free encoding of a sample with a record detail, whose content hash cannot be taken
    /// from its entry's encoding (see `contentHash`).
    private var recordHashWriter: ByteWriter = {
        var writer = ByteWriter(capacity: 1024)
        writer.omitsOffsets = true
        return writer
    }()
    /// The id key and entry columns of the item being admitted, read by SQLite in place: `admit`
    /// starts it anew for each item, and steps every statement it binds through it before.
    private let bindings = SQLiteBindingArena(capacity: 16 * 1024)

    private lazy var lookupId = try! database.prepare(
        "SELECT content_hash, seq, start_offset FROM sample_ids WHERE start = ?2 AND id = ?1")
    // A changed sample's row keeps the start offset its id was first journaled with (`FirstOffsets`).
    private lazy var insertId = try! database.prepare(
        "INSERT INTO sample_ids(start, id, content_hash, seq, start_offset) VALUES (?4, ?1, ?2, ?3, ?5) ON CONFLICT(start, id) DO UPDATE SET content_hash = excluded.content_hash, seq = excluded.seq, start_offset = coalesce(sample_ids.start_offset, excluded.start_offset)")
    private lazy var insertNewId = try! database.prepare(
        "INSERT INTO sample_ids(start, id, content_hash, seq, start_offset) VALUES (?4, ?1, ?2, ?3, ?5) ON CONFLICT(start, id) DO NOTHING")
    private lazy var updateHash = try! database.prepare("UPDATE sample_ids SET content_hash = ?2 WHERE start = ?3 AND id = ?1")
    private lazy var lookupFingerprint = try! database.prepare("SELECT id FROM fingerprints WHERE start = ?2 AND fingerprint = ?1")
    private lazy var idsAtStart = try! database.prepare("SELECT id, seq FROM sample_ids WHERE start = ?1")
    private lazy var lookupPair = try! database.prepare("SELECT partner FROM workout_pairs WHERE id = ?1")
    private lazy var insertPair = try! database.prepare("INSERT OR IGNORE INTO workout_pairs(id, partner) VALUES (?1, ?2)")
    private lazy var lookupSlot = try! database.prepare(
        "SELECT end_second, activity, unnamed, user_id FROM workout_slots WHERE start = ?2 AND id = ?1")
    private lazy var insertSlot = try! database.prepare(
        "INSERT OR REPLACE INTO workout_slots(start, id, end_second, activity, unnamed, user_id) VALUES (?2, ?1, ?3, ?4, ?5, ?6)")
    private lazy var insertMissingSlot = try! database.prepare(
        "INSERT OR IGNORE INTO workout_slots(start, id, end_second, activity, unnamed, user_id) VALUES (?2, ?1, ?3, ?4, ?5, ?6)")
    private lazy var insertFingerprint = try! database.prepare("INSERT OR IGNORE INTO fingerprints(start, fingerprint, id) VALUES (?3, ?1, ?2)")
    private lazy var insertAlias = try! database.prepare("INSERT OR IGNORE INTO aliases(alias, id) VALUES (?1, ?2)")
    private lazy var aliasesOf = try! database.prepare("SELECT alias FROM aliases WHERE id = ?1 UNION SELECT id FROM aliases WHERE alias = ?1")
    /// Whether `id` is deleted now: a tombstone named it, and no sample was stored under it since
    /// (`revived`; a journal opened read-only without that column: every deletion holds).
    private lazy var lookupDeleted = try! database.prepare(
        "SELECT 1 FROM deleted_ids WHERE id = ?1" + (hasRevivedColumn ? " AND revived IS NULL" : ""))
    private lazy var lookupSuperseded = try! database.prepare(
        "SELECT seq FROM superseded WHERE start = ?2 AND id = ?1 AND content_hash = ?3")
    private lazy var insertSuperseded = try! database.prepare(
        "INSERT INTO superseded(start, id, content_hash, seq) VALUES (?2, ?1, ?3, ?4) ON CONFLICT(start, id, content_hash) DO UPDATE SET seq = excluded.seq")
    private lazy var lookupMeta = try! database.prepare("SELECT value FROM meta WHERE key = ?1")
    private lazy var otherUsersProfile = try! database.prepare(
        "SELECT 1 FROM meta WHERE key LIKE 'latest_profile_id:%' AND key <> ?1 AND value = ?2 LIMIT 1")
    private lazy var forgetDeletion = try! database.prepare("DELETE FROM deleted_ids WHERE id = ?1")
    private lazy var upsertMeta = try! database.prepare(
        "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
    private lazy var deletedAt = try! database.prepare("SELECT seq FROM deleted_ids WHERE id = ?1")
    /// Records a deletion of `id` at entry ?2: a new one, or one of an id stored again since its
    /// last deletion (`revived`), which this one replaces.
    private lazy var insertDeleted = try! database.prepare(
        "INSERT INTO deleted_ids(id, seq) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, revived = NULL")
    /// Records that entry ?2 stored a sample under `id` after its deletion (`undelete`).
    private lazy var reviveDeleted = try! database.prepare(
        "UPDATE deleted_ids SET revived = ?2 WHERE id = ?1 AND revived IS NULL")
    private lazy var payloadAt = try! database.prepare("SELECT payload FROM entries WHERE seq = ?1")
    lazy var lookupOwner = try! database.prepare("SELECT user_id FROM sample_owners WHERE id = ?1")
    lazy var insertOwner = try! database.prepare("INSERT OR IGNORE INTO sample_owners(id, user_id) VALUES (?1, ?2)")
    lazy var upsertOwner = try! database.prepare(
        "INSERT INTO sample_owners(id, user_id) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET user_id = excluded.user_id")
    private lazy var insertEntry = try! database.prepare(
        "INSERT INTO entries(seq, source, type, received_at, payload, first_of_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
    private lazy var readEntries = try! database.prepare(
        "SELECT seq, source, type, payload, first_of_id FROM entries WHERE seq > ?1 ORDER BY seq LIMIT ?2")

    /// How a connection will be used: its page cache is sized for that.
    public enum Role: Sendable {
        /// Appends (the id indexes want cache).
        case writer
        /// Reads entries in order (a sink worker): a small cache is enough.
        case reader
        /// Only looks (`status`, `dump`): as `reader`, and a journal in a state directory this process
        /// may not write (a backup copy, another user's) is read as it is
        /// (`SQLiteDatabase.openForReading`), creating nothing beside it.
        case inspector
    }

    /// Makes every later commit of this connection reach the disk before it returns
    /// (`synchronous=FULL`; WAL's NORMAL, the default, survives a killed process, not a power cut):
    /// for a connection whose commits something else relies on at once (a push's 200, a sink's
    /// cursor past its entries, a dead letter).
    public func makeCommitsDurable() throws {
        try database.execute("PRAGMA synchronous=FULL")
    }

    /// Whether `makeCommitsDurable()` holds for this connection.
    var commitsAreDurable: Bool { (try? database.scalarInt("PRAGMA synchronous")) == 2 }

    /// Opens (creating if needed) `<stateDirectory>/journal.sqlite`.
    public init(stateDirectory: String, role: Role = .writer) throws {
        path = (stateDirectory as NSString).appendingPathComponent("journal.sqlite")
        if role == .inspector && (access(path, W_OK) != 0 || access(stateDirectory, W_OK) != 0) {
            database = try SQLiteDatabase.openForReading(path: path)
            try refuseAnotherDatabase()
            try checkSchemaVersion(creating: false)
            hasRevivedColumn = try database.scalarInt("SELECT count(*) FROM pragma_table_info('deleted_ids') WHERE name = 'revived'") == 1
            return
        }
        database = try SQLiteDatabase(path: path, pageSize: Self.pageSize)
        // The writer's id keys are time-local (see sample_ids): a modest cache holds the pages
        // being filled. Readers (sink workers) mostly take entries from memory (LiveFeed).
        try database.execute(role == .writer ? "PRAGMA cache_size=-2048" : "PRAGMA cache_size=-1024")
        // A statement's undo pages (its statement journal) in memory: past 64 KiB, four of the
        // journal's 16 KiB pages, SQLite wrote them to a temporary file for every push (a third of
        // the daemon's writes in a soak test). (No query of the journal sorts in a temporary b-tree:
        // `entryCountsByTypeAndSource` counts without one.)
        try database.execute("PRAGMA temp_store=MEMORY")
        try refuseAnotherDatabase()
        try database.execute("""
            CREATE TABLE IF NOT EXISTS entries(
                seq INTEGER PRIMARY KEY,
                source TEXT NOT NULL,
                type TEXT,
                received_at INTEGER NOT NULL,
                payload BLOB NOT NULL,
                first_of_id INTEGER NOT NULL DEFAULT 0);
            -- Id columns have no type: a UUID id is stored as its 16 bytes, any other id as text (SampleIdKey).
            -- Samples are keyed by (start second, id): inputs come roughly in time order, so
            -- new keys land next to each other instead of all over a B-tree of random UUIDs
            -- (measured: 10 s of a 1M-record import went to random id inserts).
            CREATE TABLE IF NOT EXISTS sample_ids(start INTEGER NOT NULL, id NOT NULL, content_hash INTEGER NOT NULL,
                seq INTEGER NOT NULL, start_offset INTEGER, PRIMARY KEY(start, id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS fingerprints(start INTEGER NOT NULL, fingerprint NOT NULL, id NOT NULL,
                PRIMARY KEY(start, fingerprint)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS aliases(alias PRIMARY KEY, id NOT NULL);
            CREATE INDEX IF NOT EXISTS aliases_by_id ON aliases(id);
            CREATE TABLE IF NOT EXISTS deleted_ids(id PRIMARY KEY, seq INTEGER NOT NULL);
            -- The content a sample had before a change replaced it, and the entry that replaced it: a
            -- replay (a dump, an ndjson folder) read again meets its older versions, which are not
            -- taken again (see refusesEarlierVersions).
            CREATE TABLE IF NOT EXISTS superseded(start INTEGER NOT NULL, id NOT NULL, content_hash INTEGER NOT NULL,
                seq INTEGER NOT NULL, PRIMARY KEY(start, id, content_hash)) WITHOUT ROWID;
            -- Each workout's times, activity, user and whether it names a source, which outlive
            -- its entry (journal.retain): the same workout from another producer is met by them
            -- (sameWorkoutFromAnotherProducer).
            CREATE TABLE IF NOT EXISTS workout_slots(start INTEGER NOT NULL, id NOT NULL, end_second INTEGER NOT NULL,
                activity TEXT NOT NULL, unnamed INTEGER NOT NULL, user_id TEXT, PRIMARY KEY(start, id)) WITHOUT ROWID;
            -- A workout and the one of another producer taken for it (one to one).
            CREATE TABLE IF NOT EXISTS workout_pairs(id PRIMARY KEY, partner NOT NULL) WITHOUT ROWID;
            -- The user who first pushed each id (see Journal+Owners); pushes only.
            CREATE TABLE IF NOT EXISTS sample_owners(id PRIMARY KEY, user_id TEXT NOT NULL) WITHOUT ROWID;
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
        try checkSchemaVersion()
        // Added after version 1 shipped: older journals get the columns (their entries read as not
        // known to be the first of their id, their ids' start offsets as unknown).
        try addColumnIfMissing("entries", "first_of_id", "INTEGER NOT NULL DEFAULT 0")
        try addColumnIfMissing("sample_ids", "start_offset", "INTEGER")
        // The entry that stored a sample under a deleted id afterwards (`undelete`): filled in for
        // a journal of before, whose deletions followed by a sample a second tombstone would not
        // delete again. One scan of `sample_ids`, each id looked up in `deleted_ids` (0.1 s for 1M
        // samples; a subquery a deleted id took 7 s).
        if try addColumnIfMissing("deleted_ids", "revived", "INTEGER") {
            try database.execute("""
                UPDATE deleted_ids SET revived = later.seq
                FROM (SELECT s.id, max(s.seq) AS seq FROM sample_ids s, deleted_ids d
                      WHERE d.id = s.id AND s.seq > d.seq GROUP BY s.id) AS later
                WHERE later.id = deleted_ids.id
                """)
        }
        hasRevivedColumn = true
    }

    /// Whether `deleted_ids` has its `revived` column (a journal opened read-only may not).
    private var hasRevivedColumn = false

    /// Adds `column` to `table` when the journal has not got it; true when this call added it.
    /// Another process opening the same journal may add it first.
    @discardableResult
    private func addColumnIfMissing(_ table: String, _ column: String, _ definition: String) throws -> Bool {
        func hasColumn() throws -> Bool {
            try database.scalarInt("SELECT count(*) FROM pragma_table_info('\(table)') WHERE name = '\(column)'") == 1
        }
        guard try !hasColumn() else { return false }
        do {
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(column) \(definition)")
            return true
        } catch {
            guard try hasColumn() else { throw error }
            return false
        }
    }

    /// The page size of a new journal: 16 KiB. The journal appends entries (and keys them by start,
    /// roughly in order), so large pages mean a quarter of the pages to allocate, checksum, log and
    /// copy back at checkpoints for the same entries; a store that upserts by random ids (the
    /// sqlite sink under pushes) keeps SQLite's 4 KiB, which rewrites less per changed row.
    static let pageSize = 16_384

    /// The layout of the tables above, and of what they hold (the entries' encoding, the ids'
    /// rules). A version that changes it migrates older journals forward here and raises it, so
    /// that an older healthrouter refuses the journal (every build checks it at open) rather than
    /// misread it. 2: entries may hold fields that builds of layout 1 read as damaged (a sink
    /// behind stalled on them) or re-read as changes (an import re-delivered every sample).
    static let schemaVersion: Int64 = 2

    /// Refuses a journal whose tables another layout wrote, or a later version, with what to do,
    /// rather than failing later on a statement that does not fit it or an entry it misreads. A
    /// new journal gets this layout; an older layout's is marked as this one's by the first append
    /// that writes an entry (`markLayout`), not at open: a `status` or a reader of this version
    /// leaves an older daemon's journal to it.
    private func checkSchemaVersion(creating: Bool = true) throws {
        let stored = try database.scalarInt("SELECT value FROM meta WHERE key = 'schema_version'")
        let keyedByStart = try database.scalarInt("SELECT count(*) FROM pragma_table_info('sample_ids') WHERE name = 'start'") == 1
        guard keyedByStart, stored.map({ $0 <= Self.schemaVersion }) ?? true else {
            throw JournalIncompatible(path: path, found: stored)
        }
        if stored == nil && creating {
            try database.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', \(Self.schemaVersion))")
        }
        layoutMarked = stored == nil ? creating : stored == Self.schemaVersion
    }

    /// Refuses a database whose tables are not a journal's (a store, or another program's file,
    /// copied over `journal.sqlite`) before anything is created in it: a `status` would have added
    /// the journal's tables and said every sink was healthy with nothing journaled. A journal's
    /// first table is `entries` (made first, so a journal cut short while being made has it); one
    /// of another layout has `sample_ids` (`checkSchemaVersion` says what to do with it).
    private func refuseAnotherDatabase() throws {
        let names = try database.scalarText(
            "SELECT group_concat(name, ', ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' "
                + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name)") ?? ""
        let tables = names.isEmpty ? [] : names.components(separatedBy: ", ")
        guard !tables.isEmpty, !tables.contains("entries"), !tables.contains("sample_ids") else { return }
        throw JournalIncompatible(path: path, found: nil, otherTables: tables)
    }

    /// Whether `meta` says this layout (`checkSchemaVersion`, `markLayout`).
    private var layoutMarked = false

    /// Marks the journal as of this layout, in the transaction of the first append that writes
    /// an entry: from then on it holds what earlier layouts' builds misread, and they refuse it.
    private func markLayout() throws {
        guard !layoutMarked else { return }
        try database.execute("INSERT INTO meta(key, value) VALUES ('schema_version', \(Self.schemaVersion)) "
                                 + "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        layoutMarked = true
    }

    // MARK: - Appending

    /// Appends `items` from the source named `source` in one transaction and returns
    /// what was new. Samples must be normalised; one with an empty id gets its fingerprint id
    /// (`Fingerprint.id(of:)`) here, on the appending thread (see `SourceOutput`).
    @discardableResult
    public func append(_ items: [HealthItem], source: String, receivedAt: Date = Date()) throws -> AppendResult {
        try append(items, source: source, receivedAt: receivedAt, collect: false).result
    }

    /// Appends like `append(_:source:receivedAt:)` and also returns the entries written
    /// (for a `LiveFeed`).
    public func appendCollecting(_ items: [HealthItem], source: String,
                                 receivedAt: Date = Date()) throws -> (result: AppendResult, entries: [JournalEntry]) {
        try append(items, source: source, receivedAt: receivedAt, collect: true)
    }

    /// Appends like `appendCollecting(_:source:receivedAt:)`, moving the items into the entries
    /// returned instead of copying them; `items` is left empty.
    public func appendCollecting(taking items: inout [HealthItem], source: String,
                                 receivedAt: Date = Date()) throws -> (result: AppendResult, entries: [JournalEntry]) {
        try append(taking: &items, source: source, receivedAt: receivedAt, collect: true)
    }

    private func append(_ items: [HealthItem], source: String, receivedAt: Date,
                        collect: Bool) throws -> (result: AppendResult, entries: [JournalEntry]) {
        var items = items
        return try append(taking: &items, source: source, receivedAt: receivedAt, collect: collect)
    }

    private func append(taking items: inout [HealthItem], source: String, receivedAt: Date,
                        collect: Bool) throws -> (result: AppendResult, entries: [JournalEntry]) {
        let received = Int64(receivedAt.timeIntervalSince1970 * 1000)
        defer { items.removeAll() }
        return try database.transaction {
            var result = AppendResult()
            var appended: [JournalEntry] = []
            if collect { appended.reserveCapacity(items.count) }
            var next = try head() + 1
            replacedProfile = nil
            derivedIdsAdmittedNow.removeAll(keepingCapacity: true)
            hasNativeIds = try database.scalarInt("SELECT EXISTS(SELECT 1 FROM fingerprints)") == 1
            hasDeletedIdsNow = try hasDeletedIds()
            defer { admittingPosition = nil }
            for position in items.indices {
                admittingPosition = position
                // Each item is read in place and then moved out (a copy would retain every string of its sample).
                guard let firstOfId = try admit(&items[position], sequence: next, source: source, received: received,
                                                result: &result) else {
                    continue
                }
                admittingPosition = nil
                if collect {
                    appended.append(JournalEntry(sequence: next, source: source, item: Self.take(&items[position]),
                                                 isFirstOfId: firstOfId))
                }
                next += 1
                // A profile of other content (another id) replaced the user's last one: that one is
                // deleted, in the next entry, so that every store keeps one profile a user.
                if let replaced = replacedProfile {
                    replacedProfile = nil
                    // A profile deleted before and brought back since (A → B → A → B): deleted again.
                    SampleIdKey.bind(forgetDeletion, 1, replaced.id)
                    try forgetDeletion.run()
                    var deletion = HealthItem.tombstone(Tombstone(ids: [replaced.id], userId: replaced.userId))
                    let deletedBefore = result.deletedIds
                    if try admit(&deletion, sequence: next, source: source, received: received, result: &result) != nil {
                        result.deletedIds = deletedBefore
                        result.replacedProfiles += 1
                        if collect { appended.append(JournalEntry(sequence: next, source: source, item: deletion, isFirstOfId: false)) }
                        next += 1
                    }
                }
            }
            if let last = result.lastSequence {
                try database.execute("INSERT INTO meta(key, value) VALUES ('last_seq', \(last)) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
                try markLayout()
            }
            return (result, appended)
        }
    }

    /// What an item taken out of a batch leaves behind: nothing on the heap.
    private static let placeholder = HealthItem.tombstone(Tombstone(ids: []))

    /// Swaps `item` out for the placeholder.
    private static func take(_ item: inout HealthItem) -> HealthItem {
        var taken = placeholder
        swap(&taken, &item)
        return taken
    }

    /// Admits `item` as entry `sequence` and writes it; nil when it is not new, else whether it is
    /// the first of its id. A tombstone is replaced by the one admitted (its new ids).
    private func admit(_ item: inout HealthItem, sequence: Int64, source: String, received: Int64,
                       result: inout AppendResult) throws -> Bool? {
        bindings.reset()
        // Items come in runs of one type: the set is looked in only when the type changes.
        let type = item.sampleType
        if type != lastItemType || result.itemTypes.isEmpty {
            result.itemTypes.insert(type)
            lastItemType = type
        }
        let firstOfId: Bool
        switch item {
        case .sample:
            // Moved out of the batch and back: binding it in place would copy it, retaining every string.
            guard case .sample(var sample) = Self.take(&item) else { preconditionFailure() }
            sample.assignFingerprintIdIfMissing()
            sample.id = SampleIdKey.canonicalCase(sample.id)
            var isCorrelation = false
            if case .correlation = sample.detail {
                isCorrelation = true
                if !twinNames.isEmpty { nameTwinMembers(of: &sample) }
            }
            let given = sample.id
            let first = try admit(&sample, sequence: sequence, result: &result)
            if isCorrelation {
                // Its members came just before it: the next correlation's come after it.
                twinNames.removeAll()
            } else if given != sample.id {
                twinNames[given] = sample.id
            } else if !twinNames.isEmpty {
                twinNames.removeValue(forKey: given)
            }
            item = .sample(sample)
            guard let first else { return nil }
            firstOfId = first
        case .tombstone(let tombstone):
            guard let expanded = try admit(tombstone, sequence: sequence, result: &result) else { return nil }
            item = .tombstone(expanded)
            writer.reset()
            SampleCodec.encode(item, into: &writer)
            firstOfId = false
        }
        try writeEntry(sequence: sequence, source: source, type: type, received: received, firstOfId: firstOfId)
        if result.firstSequence == nil { result.firstSequence = sequence }
        result.lastSequence = sequence
        return firstOfId
    }

    /// Decides whether `sample` becomes an entry (nil: it does not); leaves its encoding in `writer`
    /// when it does. The entry is the first of its id (true) when the sample is new and its id is a
    /// fingerprint id: a fingerprint id fixes the start, so no entry under another start has it.
    /// A producer's own id may come back at another start, which `sample_ids` keys apart.
    ///
    /// The content hash leaves UTC offsets out: the same instants with other offsets are the same
    /// sample (an Apple export stamps every date with the exporting phone's offset of the day, so
    /// exports before and after a daylight-saving change differ in nothing else). The entry keeps
    /// the offsets the sample first came with.
    ///
    /// With `twinsAfter` set, a sample whose fingerprint id was journaled after that sequence with
    /// other content is a second sample, not a change: it gets its twin id (see `twinId`).
    private func admit(_ sample: inout Sample, sequence: Int64, result: inout AppendResult) throws -> Bool? {
        precondition(!sample.id.isEmpty, "samples are admitted with an id")
        guard try mayWrite(sample) else {
            result.refusedOtherUsersIds += 1
            result.refusedSampleIds.insert(SampleIdKey.canonicalCase(sample.id))
            if let admittingPosition { result.refusedItems[admittingPosition] = .anotherUsersId }
            return nil
        }
        // The entry's encoding, offsets included and marked, once: the hash is taken from it.
        func encodeEntry() { encodeIntoWriter(sample) }
        if sample.kind == .profile, try isOlderProfile(sample) {
            result.earlierVersions += 1
            result.duplicates[sample.kind, default: 0] += 1
            return nil
        }
        encodeEntry()
        var hash = contentHash(of: sample)

        let start = Self.keySecond(sample)
        var isNew = true
        let key = SampleIdKey.Key(sample.id)
        // A fingerprint id while no sample ever brought its own: no other id can hold this reading
        // (see `earlierId`; a workout can: `sameWorkoutFromAnotherProducer`). While samples keep
        // coming new (an import), the id is inserted straight
        // away and looked up only when it was there already: one search of `sample_ids` for a new
        // sample instead of two. While they keep coming known (a re-import), the lookup comes first:
        // a refused insert costs more than a lookup.
        let isFingerprintId = Self.isFingerprintId(sample.id)
        if isFingerprintId && !hasNativeIds && lastWasNew && sample.kind != .activitySummary && sample.kind != .workout {
            try recordId(key, hash: hash, sequence: sequence, start: start, of: sample, with: insertNewId)
            if database.changes == 1 {
                if sample.kind == .profile { try noteProfile(sample) }
                try undelete(sample.id, at: sequence)
                result.new[sample.kind, default: 0] += 1
                return true
            }
        }
        lastWasNew = false
        key.bind(lookupId, 1, through: bindings)
        lookupId.bind(2, start)
        if try lookupId.step() {
            let stored = lookupId.int64(0)
            let storedSequence = lookupId.int64(1)
            let storedStartOffset = lookupId.isNull(2) ? nil : Int32(truncatingIfNeeded: lookupId.int64(2))
            lookupId.reset()
            if stored == hash {
                noteMetBefore(key, storedSequence: storedSequence)
                if let inputStart, storedSequence > inputStart { result.repeatedInInput += 1 }
                result.duplicates[sample.kind, default: 0] += 1
                // A workout journaled before slots were kept gets its slot when it is met again.
                if sample.kind == .workout { try recordSlot(of: sample, start: start, replacing: false) }
                return nil
            }
            // Stored by a journal whose hash had the offsets in it: the same sample. Its hash is
            // brought up to date, so the next look is one encoding again.
            func isStoredWithOffsetsInItsHash() throws -> Bool {
                guard stored == ContentHash.of(writer.bytes) else { return false }
                key.bind(updateHash, 1, through: bindings)
                updateHash.bind(2, hash)
                updateHash.bind(3, start)
                try updateHash.run()
                return true
            }
            // Stored by a journal that hashed a workout route's dates as their text (before they
            // counted as instants): the same sample when that hash matches; brought up to date too.
            func isStoredWithRouteDatesAsText() throws -> Bool {
                guard case .workout(let workout) = sample.detail, SampleCodec.hasRouteAttributeDates(workout),
                      stored == ContentHash.of(writer.bytes, skipping: writer.offsetRanges) else { return false }
                key.bind(updateHash, 1, through: bindings)
                updateHash.bind(2, hash)
                updateHash.bind(3, start)
                try updateHash.run()
                return true
            }
            if try isStoredWithOffsetsInItsHash() || isStoredWithRouteDatesAsText() {
                noteMetBefore(key, storedSequence: storedSequence)
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            // Parts a forward leaves out come from the stored version; not in an import that tells
            // twins apart, where a fingerprint met again may be another sample with other parts.
            // The stored version is decoded once, for both.
            let mayRestoreOmittedParts = !(isFingerprintId && twinsAfter != nil)
            var isWorkout = false
            if case .workout = sample.detail { isWorkout = true }
            let lacksFHIRResource = Self.lacksFHIRResource(sample)
            let storedVersion = mayRestoreOmittedParts || isWorkout || lacksFHIRResource
                ? try storedSample(at: storedSequence) : nil
            // A producer's id under another type is that id sent wrongly, not a change: the first
            // type stays (Pulso: "same uuid under a different type is still a duplicate"). A
            // fingerprint or derived id has the type in it.
            if !isFingerprintId, !Self.isDerivedId(sample.id), let storedVersion,
               TypeRegistry.identifier(of: storedVersion.type) != TypeRegistry.identifier(of: sample.type) {
                result.idsOfAnotherType += 1
                result.refusedSampleIds.insert(SampleIdKey.canonicalCase(sample.id))
                if let admittingPosition { result.refusedItems[admittingPosition] = .anotherType }
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            var restored = false
            if mayRestoreOmittedParts, let storedVersion {
                restored = restoreOmittedDetail(of: &sample, from: storedVersion)
            }
            if isWorkout, try restoreRoutePoints(of: &sample, stored: storedVersion, storedSequence: storedSequence, start: start) {
                restored = true
            }
            if lacksFHIRResource, let storedVersion, restoreFHIRResource(of: &sample, from: storedVersion) {
                restored = true
            }
            if restored {
                encodeEntry()
                hash = contentHash(of: sample)
                if try stored == hash || isStoredWithOffsetsInItsHash() || isStoredWithRouteDatesAsText() {
                    result.duplicates[sample.kind, default: 0] += 1
                    return nil
                }
            }
            // A day's activity summary has one id whatever its content: a second one in one export
            // is a change of it, not a twin.
            if isFingerprintId, let twinsAfter, sample.kind != .activitySummary {
                let twin = Self.twinId(of: sample.id, contentHash: hash)
                let twinKey = SampleIdKey.Key(twin)
                twinKey.bind(lookupId, 1, through: bindings)
                lookupId.bind(2, start)
                let twinKnown = try lookupId.step()
                let twinSequence = twinKnown ? lookupId.int64(1) : 0
                lookupId.reset()
                if twinKnown {
                    sample.id = twin
                    if let inputStart, twinSequence > inputStart { result.repeatedInInput += 1 }
                    result.duplicates[sample.kind, default: 0] += 1
                    return nil
                }
                if storedSequence > twinsAfter || wasMetBefore(key) {
                    sample.id = twin
                    encodeEntry()
                    // Under its own id: a replay of the twin (a dump, an ndjson folder) meets this hash.
                    hash = contentHash(of: sample)
                    result.new[sample.kind, default: 0] += 1
                    try recordId(twinKey, hash: hash, sequence: sequence, start: start, of: sample)
                    if sample.kind == .workout { try recordSlot(of: sample, start: start) }
                    return true
                }
            }
            // Deleted since it was stored (a tombstone came after it): it stays deleted, whatever
            // its content now (a phone re-sending it with other metadata, a later export's copy),
            // as the same content sent again does. (Not a twin of it in one export: that is
            // another sample, stored under its twin id above.)
            if try isDeleted(sample.id, after: storedSequence) {
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            // A reading whose id a source derived from its period (a Health Auto Export point alone
            // at its date) that the same user's push holds under another such id (one of several
            // readings at that date, whose ids carry their values): that reading again, not a
            // change of what this id holds.
            if Self.isDerivedId(sample.id),
               try otherDerivedId(holding: Fingerprint.id(of: sample), of: sample, start: start) != nil {
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            // Another version from an input older than one the journal took (an older export), or a
            // version this id had before a change replaced it, met again in a replay read after the
            // change (the dump or folder read again): not taken back. Within one replay, the later
            // line of an id is its later version, as the journal listed them.
            if try inputIsOlder || isReplacedBeforeThisInput(key, start: start, hash: hash) {
                result.earlierVersions += 1
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            key.bind(insertSuperseded, 1, through: bindings)
            insertSuperseded.bind(2, start)
            insertSuperseded.bind(3, stored)
            insertSuperseded.bind(4, sequence)
            try insertSuperseded.run()
            if keepsFirstOffsets, !FirstOffsets.recordsItsZone(sample),
               let first = try storedStartOffset ?? (storedVersion ?? storedSample(at: storedSequence))?.start.utcOffsetSeconds,
               FirstOffsets.apply(firstStartOffset: first, to: &sample) {
                encodeEntry()
            }
            result.changed[sample.kind, default: 0] += 1
            isNew = false
        } else {
            lookupId.reset()
            if try isStoredUnderFormerId(sample, hash: hash, start: start) {
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            // A producer's id met before as an alias of a stored reading at this start (a push of an
            // export's sample), deleted since: it stays deleted whatever its content now, as an id
            // stored under its own name does.
            if !isFingerprintId, try isDeletedAlias(sample.id, start: start) {
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            if let existing = try earlierId(ofSameReadingAs: sample) {
                SampleIdKey.bind(insertAlias, 1, sample.id)
                SampleIdKey.bind(insertAlias, 2, existing)
                try insertAlias.run()
                // Stored, under the reading it names: a tombstone of the id before it (Pulso's
                // rule: it blocks no later sample) is followed by a sample, as for an id stored
                // under its own name.
                try undelete(sample.id, at: sequence)
                result.aliased += 1
                result.duplicates[sample.kind, default: 0] += 1
                return nil
            }
            result.new[sample.kind, default: 0] += 1
            try undelete(sample.id, at: sequence)
            lastWasNew = true
        }
        try recordId(key, hash: hash, sequence: sequence, start: start, of: sample)
        if sample.kind == .profile { try noteProfile(sample) }
        if case .workout = sample.detail { try recordSlot(of: sample, start: start) }
        if isNew, !isFingerprintId, Self.isDerivedId(sample.id) { derivedIdsAdmittedNow.insert(sample.id) }
        return isNew && isFingerprintId
    }

    /// Encodes `sample` as its entry into `writer`, its offsets marked (`contentHash` skips them).
    private func encodeIntoWriter(_ sample: Sample) {
        writer.reset()
        writer.marksOffsets = true
        SampleCodec.encode(sample: sample, into: &writer)
        writer.marksOffsets = false
    }

    /// Whether, in a replay (`refusesEarlierVersions`), `hash` is content of `key` at `start` that a
    /// change replaced before the input began.
    private func isReplacedBeforeThisInput(_ key: SampleIdKey.Key, start: Int64, hash: Int64) throws -> Bool {
        guard refusesEarlierVersions, let inputStart,
              let replacedAt = try supersededSequence(key, start: start, hash: hash) else { return false }
        return replacedAt <= inputStart
    }

    /// The sequence of the entry that replaced `hash` as the content of `key` at `start`, when one did.
    private func supersededSequence(_ key: SampleIdKey.Key, start: Int64, hash: Int64) throws -> Int64? {
        key.bind(lookupSuperseded, 1, through: bindings)
        lookupSuperseded.bind(2, start)
        lookupSuperseded.bind(3, hash)
        defer { lookupSuperseded.reset() }
        return try lookupSuperseded.step() ? lookupSuperseded.int64(0) : nil
    }

    /// The id of the profile the one just admitted replaced (the same user's, of other content),
    /// which `append` deletes in the entry after it.
    private var replacedProfile: (id: String, userId: String?)?

    /// The position, in the items `append` was given, of the one admitted now: where its refusals
    /// are recorded (`AppendResult.refusedItems`). Nil for an entry the journal makes itself (the
    /// deletion of a replaced profile).
    private var admittingPosition: Int?

    /// Records in `meta` when a daemon started on this journal: its first write, so that a
    /// journal that takes none is found at the start.
    public func noteDaemonStart() throws {
        try database.execute("INSERT INTO meta(key, value) VALUES ('daemon_started_at', unixepoch()) "
                                 + "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
    }

    /// The key in `meta` of the start of the latest profile journaled for `sample`'s user.
    private static func profileKey(_ sample: Sample) -> String { "latest_profile_start:" + (sample.userId ?? "") }

    /// Whether `sample`, a profile (an export's `Me`, at its export date), is older than one journaled
    /// for its user: an older export's, read after a newer one's. A profile's id is its content's, so
    /// the two are two samples; the newer one stays the user's profile in every store.
    private func isOlderProfile(_ sample: Sample) throws -> Bool {
        lookupMeta.bind(1, Self.profileKey(sample))
        defer { lookupMeta.reset() }
        guard try lookupMeta.step(), !lookupMeta.isNull(0) else { return false }
        return lookupMeta.int64(0) > sample.start.epochMilliseconds
    }

    /// Records `sample`, a profile taken, as its user's latest; its start is its export's date, so
    /// the user's latest export is at least that recent (a dump's replay brings no other date: an
    /// older export imported after it must not change what the dump restored).
    private func noteProfile(_ sample: Sample) throws {
        upsertMeta.bind(1, Self.profileKey(sample))
        upsertMeta.bind(2, sample.start.epochMilliseconds)
        try upsertMeta.run()
        // Its id is its content's: a profile that changed (a date of birth set) has another, and the
        // one it replaces is deleted (`replacedProfile`).
        let idKey = "latest_profile_id:" + (sample.userId ?? "")
        lookupMeta.bind(1, idKey)
        let previous = try lookupMeta.step() && !lookupMeta.isNull(0) ? lookupMeta.string(0) : nil
        lookupMeta.reset()
        // Not when another user's latest profile has that id too (equal content: a profile's id has
        // no user in it), which deleting it would take from them.
        if let previous, previous != sample.id {
            otherUsersProfile.bind(1, idKey)
            otherUsersProfile.bind(2, previous)
            let shared = try otherUsersProfile.step()
            otherUsersProfile.reset()
            if !shared { replacedProfile = (previous, sample.userId) }
        }
        upsertMeta.bind(1, idKey)
        upsertMeta.bind(2, sample.id)
        try upsertMeta.run()
        // Not in an input that told its date: that date counts once the input is in (`finishInput`).
        if inputWritten == nil, try !isOlderInput(sample.start, userId: sample.userId) {
            try noteLatestInput(sample.start, userId: sample.userId)
        }
    }

    /// Whether the journal holds a later version of `sample` (`backfill --from`: a file's sample the
    /// journal has since replaced is not written back): content it replaced with a change, any other
    /// content when the file is `older` than an input the journal took (`isOlderInput`), or a profile
    /// older than the user's latest. `sample` as read (its id may be empty: its fingerprint id).
    public func isEarlierVersion(_ sample: Sample, fromOlderInput older: Bool = false) throws -> Bool {
        var sample = sample
        sample.assignFingerprintIdIfMissing()
        sample.id = SampleIdKey.canonicalCase(sample.id)
        if sample.kind == .profile, try isOlderProfile(sample) { return true }
        bindings.reset()
        encodeIntoWriter(sample)
        let hash = contentHash(of: sample)
        let key = SampleIdKey.Key(sample.id)
        let start = Self.keySecond(sample)
        key.bind(lookupId, 1, through: bindings)
        lookupId.bind(2, start)
        let current = try lookupId.step() ? lookupId.int64(0) : nil
        lookupId.reset()
        // The same content, also as an older journal hashed it (with the offsets, or a route's dates as text).
        guard let current, current != hash, current != ContentHash.of(writer.bytes),
              current != ContentHash.of(writer.bytes, skipping: writer.offsetRanges) else { return false }
        return try older || supersededSequence(key, start: start, hash: hash) != nil
    }

    /// Whether any sample that brought an id of its own (a push's, a replay's) was journaled: only
    /// then can a file's sample under its fingerprint id be a reading the journal holds under
    /// another id (`sameReadingUnderAnotherId`). One indexed search.
    public func holdsSamplesWithTheirOwnIds() throws -> Bool {
        try database.scalarInt("SELECT EXISTS(SELECT 1 FROM fingerprints)") == 1
    }

    /// The reading `sample` (a file's, read without the journal: `backfill --from`) brings, when
    /// the journal holds it under another id, as an import of the file would find it and take the
    /// sample's id for an alias of that one ("already in the journal under another id"): an
    /// export's record under its fingerprint id that a push brought with its own id (a Pulso
    /// sample's HealthKit UUID), a workout another producer brought (see
    /// `sameWorkoutFromAnotherProducer`), a replay's or Health Auto Export file's sample the journal
    /// holds under its fingerprint id or another derived id. It is the journal's current version of
    /// that id, or, once its entry was pruned (`journal.retain`), `sample` under that id: a store
    /// then holds one row of the reading, under the id every other store has it by. Nil when the
    /// journal holds the sample under its own id, or not at all. Reads only.
    ///
    /// `lookingUpFingerprints`: `holdsSamplesWithTheirOwnIds()`, asked by the caller (once a batch);
    /// without it a sample under a fingerprint id is asked nothing (an export-only journal). With it,
    /// such a sample costs one indexed search (a workout: those of its start second), and a sample
    /// under another id one (the search of its own id) while the journal holds it under that id.
    public func sameReadingUnderAnotherId(_ sample: Sample, lookingUpFingerprints: Bool) throws -> Sample? {
        var sample = sample
        sample.assignFingerprintIdIfMissing()
        sample.id = SampleIdKey.canonicalCase(sample.id)
        bindings.reset()
        let start = Self.keySecond(sample)
        var found: String?
        if Self.isFingerprintId(sample.id) {
            guard lookingUpFingerprints else { return nil }
            if sample.kind == .workout { found = try sameWorkoutFromAnotherProducer(sample) }
            if found == nil {
                SampleIdKey.bind(lookupFingerprint, 1, sample.id)
                lookupFingerprint.bind(2, start)
                found = try lookupFingerprint.step() ? SampleIdKey.read(lookupFingerprint, 0) : nil
                lookupFingerprint.reset()
            }
            // As in `admit`: a sample the journal holds under its own id is that one.
            guard found != nil, found != sample.id, try !isStored(sample.id, start: start) else { return nil }
        } else {
            guard try !isStored(sample.id, start: start) else { return nil }
            if sample.kind == .workout { found = try sameWorkoutFromAnotherProducer(sample) }
            if found == nil {
                let fingerprintId = Fingerprint.id(of: sample)
                if try isStored(fingerprintId, start: start) {
                    found = fingerprintId
                } else if Self.isDerivedId(sample.id) {
                    found = try otherDerivedId(holding: fingerprintId, of: sample, start: start)
                }
            }
        }
        guard let other = found, other != sample.id else { return nil }
        if let sequence = try storedSequence(of: other, start: start), let held = try storedSample(at: sequence) {
            return held
        }
        sample.id = other
        return sample
    }

    /// Whether `sample`, an activity summary new under its id, is journaled already, unchanged,
    /// under the id healthrouter gave a summary before its id was one a day (the fingerprint id of
    /// every attribute). Its id is then recorded for that entry, so that the same summary is a
    /// duplicate and a later export's other totals for the day are a change of it.
    private func isStoredUnderFormerId(_ sample: Sample, hash: Int64, start: Int64) throws -> Bool {
        guard sample.kind == .activitySummary, case .record = sample.detail else { return false }
        var former = sample
        former.id = Fingerprint.id(of: sample)
        guard former.id != sample.id else { return false }
        SampleIdKey.bind(lookupId, 1, former.id)
        lookupId.bind(2, start)
        guard try lookupId.step() else {
            lookupId.reset()
            return false
        }
        let stored = lookupId.int64(0)
        let storedSequence = lookupId.int64(1)
        lookupId.reset()
        recordHashWriter.reset()
        SampleCodec.encode(sample: former, into: &recordHashWriter)
        guard stored == ContentHash.of(recordHashWriter.bytes) else { return false }
        try recordId(SampleIdKey.Key(sample.id), hash: hash, sequence: storedSequence, start: start, of: sample)
        return true
    }

    /// The content hash of `sample`, whose entry encoding `writer` holds: the hash of its encoding
    /// without UTC offsets (`ByteWriter.omitsOffsets`), taken from the entry's bytes without the
    /// offsets' ones. A record detail's date attributes count as their instants in that encoding,
    /// which skipping bytes cannot give: such a sample is encoded a second time.
    private func contentHash(of sample: Sample) -> Int64 {
        guard Self.hasDatesAsText(sample) else { return ContentHash.of(writer.bytes, skipping: writer.offsetRanges) }
        recordHashWriter.reset()
        SampleCodec.encode(sample: sample, into: &recordHashWriter)
        return ContentHash.of(recordHashWriter.bytes)
    }

    /// Whether `sample`'s detail holds dates as text that count as their instants in the hash:
    /// a record's date attributes, a workout route's (`creationDate`).
    private static func hasDatesAsText(_ sample: Sample) -> Bool {
        switch sample.detail {
        case .record: true
        case .workout(let workout): SampleCodec.hasRouteAttributeDates(workout)
        default: false
        }
    }

    /// The id under which the reading `sample` brings was stored before under another id,
    /// if any. Records the fingerprint of a sample that brings its own id, so that the
    /// same reading arriving later without one (from an export) is recognised.
    private func earlierId(ofSameReadingAs sample: Sample) throws -> String? {
        if sample.kind == .workout, let existing = try sameWorkoutFromAnotherProducer(sample) {
            SampleIdKey.bind(insertPair, 1, existing)
            SampleIdKey.bind(insertPair, 2, sample.id)
            try insertPair.run()
            return existing
        }
        // A version-5 UUID is a fingerprint id (producers' own ids are random, version 4):
        // computing the fingerprint again would give the same id.
        if Self.isFingerprintId(sample.id) {
            // Only a sample that brought its own id can hold this reading under another id.
            guard hasNativeIds else { return nil }
            SampleIdKey.bind(lookupFingerprint, 1, sample.id)
            lookupFingerprint.bind(2, Self.keySecond(sample))
            defer { lookupFingerprint.reset() }
            return try lookupFingerprint.step() ? SampleIdKey.read(lookupFingerprint, 0) : nil
        }
        // A sample with its own id is the same as one stored without (an export's record), never
        // as another that brought its own: two producer ids are two samples (two foods of equal
        // energy logged at one time; two users' equal readings), and the first keeps the fingerprint.
        let fingerprintId = Fingerprint.id(of: sample)
        let start = Self.keySecond(sample)
        if try isStored(fingerprintId, start: start) { return fingerprintId }
        // An id derived from the reading's period (a Health Auto Export point: version 8) for a
        // reading the same user's push stored under another such id: the same reading, sent once
        // alone and once beside another source's point at its date, not a second sample.
        if Self.isDerivedId(sample.id), let existing = try otherDerivedId(holding: fingerprintId, of: sample, start: start) {
            return existing
        }
        SampleIdKey.bind(insertFingerprint, 1, fingerprintId)
        SampleIdKey.bind(insertFingerprint, 2, sample.id)
        insertFingerprint.bind(3, Self.keySecond(sample))
        try insertFingerprint.run()
        hasNativeIds = true
        return nil
    }

    /// Records `key` at `start` in `sample_ids` with its content hash and entry, and, when the id is
    /// new there, the offset `sample`'s start comes with (a known id keeps its first: `FirstOffsets`).
    /// `statement`: `insertId` (a known id is updated) or `insertNewId` (a known id is left alone).
    private func recordId(_ key: SampleIdKey.Key, hash: Int64, sequence: Int64, start: Int64, of sample: Sample,
                          with statement: SQLiteStatement? = nil) throws {
        let statement = statement ?? insertId
        key.bind(statement, 1, through: bindings)
        statement.bind(2, hash)
        statement.bind(3, sequence)
        statement.bind(4, start)
        statement.bind(5, sample.start.utcOffsetSeconds.map(Int64.init))
        try statement.run()
    }

    /// A workout journaled under another id that is `sample` from another producer, when exactly
    /// one of the two has no source of its own (`Fingerprint.unnamedSource`: Health Auto Export's
    /// workouts name none, so neither id nor fingerprint meets an export's) and at least one has
    /// a fingerprint id (two producer ids are two HealthKit objects): the same user's (or one
    /// without a user: an import's, as a fingerprint meets any user's), of the same activity,
    /// starting and ending in the same seconds, not deleted, and not yet taken for another
    /// workout (one to one: two named workouts at those times stay two). The first one journaled
    /// stays.
    private func sameWorkoutFromAnotherProducer(_ sample: Sample) throws -> String? {
        guard case .workout(let workout) = sample.detail else { return nil }
        let unnamed = sample.sourceName == Fingerprint.unnamedSource
        let start = Self.keySecond(sample)
        idsAtStart.bind(1, start)
        var candidates: [(id: String, sequence: Int64)] = []
        while try idsAtStart.step() {
            if let id = SampleIdKey.read(idsAtStart, 0), id != sample.id { candidates.append((id, idsAtStart.int64(1))) }
        }
        idsAtStart.reset()
        let endSecond = Self.second(of: sample.end)
        let activity = WorkoutActivityName.healthKitName(workout.activityType)
        for candidate in candidates where Self.isFingerprintId(sample.id) || Self.isFingerprintId(candidate.id) {
            // Its slot, or (journaled before slots were kept) its entry, while the journal has it.
            guard let other = try slot(of: candidate.id, start: start)
                    ?? storedSample(at: candidate.sequence).flatMap(Self.slot(of:)),
                  other.unnamed != unnamed, other.userId == sample.userId || other.userId == nil || sample.userId == nil,
                  other.activity == activity, other.endSecond == endSecond
            else { continue }
            SampleIdKey.bind(lookupDeleted, 1, candidate.id)
            let deleted = try lookupDeleted.step()
            lookupDeleted.reset()
            SampleIdKey.bind(lookupPair, 1, candidate.id)
            let partner = try lookupPair.step() ? SampleIdKey.read(lookupPair, 0) : nil
            lookupPair.reset()
            let taken = partner.map { $0 != sample.id } ?? false
            // Deleted, it is still the one this sample was taken for before (a file read again
            // brings the pair and its tombstone back): the sample stays deleted with it.
            if deleted ? partner == sample.id : !taken { return candidate.id }
        }
        return nil
    }

    /// What `sameWorkoutFromAnotherProducer` compares of a workout.
    private struct WorkoutSlot {
        var endSecond: Int64
        var activity: String
        var unnamed: Bool
        var userId: String?
    }

    private static func slot(of sample: Sample) -> WorkoutSlot? {
        guard case .workout(let workout) = sample.detail else { return nil }
        return WorkoutSlot(endSecond: second(of: sample.end), activity: WorkoutActivityName.healthKitName(workout.activityType),
                           unnamed: sample.sourceName == Fingerprint.unnamedSource, userId: sample.userId)
    }

    private func slot(of id: String, start: Int64) throws -> WorkoutSlot? {
        SampleIdKey.bind(lookupSlot, 1, id)
        lookupSlot.bind(2, start)
        defer { lookupSlot.reset() }
        guard try lookupSlot.step() else { return nil }
        return WorkoutSlot(endSecond: lookupSlot.int64(0), activity: lookupSlot.string(1) ?? "", unnamed: lookupSlot.int64(2) != 0,
                           userId: lookupSlot.isNull(3) ? nil : lookupSlot.string(3))
    }

    /// Records the slot of a workout just journaled (new, or changed), or (`replacing: false`) met
    /// again, when it has none yet.
    private func recordSlot(of sample: Sample, start: Int64, replacing: Bool = true) throws {
        guard let slot = Self.slot(of: sample) else { return }
        let statement = replacing ? insertSlot : insertMissingSlot
        SampleIdKey.bind(statement, 1, sample.id)
        statement.bind(2, start)
        statement.bind(3, slot.endSecond)
        statement.bind(4, slot.activity)
        statement.bind(5, Int64(slot.unnamed ? 1 : 0))
        statement.bind(6, slot.userId)
        try statement.run()
    }

    /// Ids a source derived (version 8) that this append took as new samples: another reading of
    /// the same body (two blood pressures taken within a minute whose systolic values are equal,
    /// each with its own id), never the same reading as one of them (`otherDerivedId`).
    private var derivedIdsAdmittedNow: Set<String> = []

    /// Another id a source derived (version 8) that holds the same user's reading with this
    /// fingerprint now, when there is one: the id it was first journaled under, as long as that id's
    /// current version still is that reading (a period's total moves on). Not one this append took
    /// (`derivedIdsAdmittedNow`): one body's points with ids of their own are readings of their own.
    private func otherDerivedId(holding fingerprintId: String, of sample: Sample, start: Int64) throws -> String? {
        SampleIdKey.bind(lookupFingerprint, 1, fingerprintId)
        lookupFingerprint.bind(2, start)
        let existing = try lookupFingerprint.step() ? SampleIdKey.read(lookupFingerprint, 0) : nil
        lookupFingerprint.reset()
        guard let existing, existing != sample.id, Self.isDerivedId(existing), !derivedIdsAdmittedNow.contains(existing),
              let sequence = try storedSequence(of: existing, start: start),
              let current = try storedSample(at: sequence), current.userId == sample.userId,
              Fingerprint.id(of: current) == fingerprintId else { return nil }
        return existing
    }

    /// Whether ids belong to the first user who brought them (`mayWrite`, `mayDelete`): set for
    /// the daemon's pushes, which come from several users' tokens.
    public var enforcesOwners = false

    /// With `enforcesOwners`, for items another healthrouter forwards (a `forwarded_user_ids`
    /// token): that token's user, whose ids (those of forwarded samples that came without a user,
    /// stamped with it) pass to the users the forwarded items carry (`mayWrite`, `mayDelete`).
    /// Without it, a deletion the forwarding healthrouter took of an imported sample was refused
    /// here, and the mirror kept the deleted sample for good.
    public var forwardingUser: String?

    /// The type of the item `admit` took last (nil: a tombstone), for `AppendResult.itemTypes`.
    private var lastItemType: String?

    /// Whether any sample with its own id was ever journaled (refreshed per append, since
    /// another process may append too).
    private var hasNativeIds = false

    /// The ids samples admitted under a fingerprint id since the last correlation were told apart
    /// by as twins (fingerprint id → twin id; a sample admitted under its fingerprint id since
    /// takes its entry out), for `nameTwinMembers`. The export source emits a correlation's members
    /// just before it (a member whose id has two contents always: `CorrelationMemberDeduplicator`),
    /// so each correlation empties it, and so does each input (`twinsAfter`). Twins are told apart
    /// only in an import, so it holds no more than the twins of one file.
    private var twinNames: [String: String] = [:]

    /// Points a correlation's member ids at the samples just admitted for them: a member the
    /// journal told apart from its twin by its twin id (two foods of equal energy at one meal,
    /// each in its own correlation) is named by that id, not by the fingerprint id both share. A
    /// correlation whose id was the fingerprint of its former members gets that of its members.
    private func nameTwinMembers(of sample: inout Sample) {
        guard case .correlation(let members) = sample.detail,
              members.contains(where: { twinNames[$0] != nil }) else { return }
        let formerId = Fingerprint.id(of: sample)
        sample.detail = .correlation(memberIds: members.map { twinNames[$0] ?? $0 })
        if sample.id == formerId { sample.id = Fingerprint.id(of: sample) }
    }

    /// Whether the last sample admitted was new: the next one probably is too.
    private var lastWasNew = true

    /// The id of a second sample with the same fingerprint as one journaled before but other
    /// content (two food entries of equal nutrients at one time, told apart by their metadata, or
    /// two records differing in their creation date): the UUIDv5 of the fingerprint id and the
    /// content hash, the same in every import of the file, whatever order the two come in.
    static func twinId(of fingerprintId: String, contentHash: Int64) -> String {
        UUIDv5.string(name: fingerprintId + "\u{1F}" + String(contentHash))
    }

    /// Set by a one-shot import to the journal's head when it starts: a fingerprint id journaled
    /// after it, met again with other content in the same import, is a second sample (a file holds
    /// both), not a change, and so is one journaled before it that the import met as it was
    /// (`metBefore`); met again in a later import without it, it is a change. Nil (the daemon):
    /// always a change.
    public var twinsAfter: Int64? {
        didSet {
            twinNames.removeAll()
            metBefore = nil
        }
    }

    /// Set by a one-shot import to the journal's head when it starts reading an input, whatever the
    /// input: a duplicate of an entry journaled after it was read earlier in the same input (a
    /// record given twice, a correlation member's copy, a line an ndjson folder holds twice), not
    /// in the journal before (`AppendResult.repeatedInInput`). Nil: not counted apart.
    public var inputStart: Int64?

    /// Set by a one-shot import for an input whose dates carry the offset of the day it was written,
    /// not the sample's own (an Apple export: `FiniteSource.datesCarryTheExportersOffset`): a changed
    /// version of a journaled sample keeps the offsets its instants were first journaled with
    /// (`FirstOffsets`), unless it records its own zone (`HKTimeZone`). An unchanged one keeps its
    /// entry, offsets and all, in any case.
    public var keepsFirstOffsets = false

    /// Set by a one-shot import for an input that lists the versions of a sample in the order they
    /// came (a replay: a journal dump, an ndjson folder; `FiniteSource.listsVersionsInOrder`): a
    /// version the journal replaced before the input started (`inputStart`) is an earlier one, not a
    /// change back (`AppendResult.earlierVersions`), so reading the dump again changes nothing.
    public var refusesEarlierVersions = false

    /// Whether the input being imported was written before another of the same user the journal took
    /// (an export older than one of theirs imported before: `noteInputWritten`): a sample it holds in another version
    /// than the journal's is an earlier version, left out (`AppendResult.earlierVersions`), so
    /// importing exports in any order, or again, ends with the newest export's versions. Set by
    /// `noteInputWritten`; cleared by `beginInput`.
    public private(set) var inputIsOlder = false

    /// When the input being imported was written, and whose it is, as it told (`noteInputWritten`).
    private var inputWritten: (date: Timestamp, userId: String?)?

    /// Called by a one-shot import before each input: it has told no date yet.
    public func beginInput() {
        inputIsOlder = false
        inputWritten = nil
    }

    /// Notes that the input being imported was written at `date` (an export's `ExportDate`) for
    /// `userId` (the user its samples get; each user's exports are ordered apart): sets
    /// `inputIsOlder` when an input of theirs the journal took was written later. The date becomes
    /// their latest only once the input was read to its end (`finishInput`): an export cut short
    /// or killed has not brought its versions, and must not make an older one's count as earlier.
    public func noteInputWritten(at date: Timestamp, userId: String?) throws {
        inputIsOlder = try isOlderInput(date, userId: userId)
        inputWritten = (date, userId)
    }

    /// Called by a one-shot import once an input was read to its end and journaled: the date it
    /// told (`noteInputWritten`) becomes its user's latest when it is later.
    public func finishInput() throws {
        defer { inputWritten = nil }
        guard let (date, userId) = inputWritten, try !isOlderInput(date, userId: userId) else { return }
        try noteLatestInput(date, userId: userId)
    }

    private func noteLatestInput(_ date: Timestamp, userId: String?) throws {
        upsertMeta.bind(1, Self.latestInputKey(userId))
        upsertMeta.bind(2, date.epochMilliseconds)
        try upsertMeta.run()
    }

    /// Whether an input of `userId`'s the journal took was written after `date`.
    public func isOlderInput(_ date: Timestamp, userId: String?) throws -> Bool {
        lookupMeta.bind(1, Self.latestInputKey(userId))
        defer { lookupMeta.reset() }
        guard try lookupMeta.step(), !lookupMeta.isNull(0) else { return false }
        return lookupMeta.int64(0) > date.epochMilliseconds
    }

    private static func latestInputKey(_ userId: String?) -> String { "latest_input_written_at:" + (userId ?? "") }

    /// The fingerprint ids an import met in entries journaled before it (`twinsAfter`), with the
    /// content they had: a later record of one with other content is its twin, as one journaled
    /// by the import is (an export that holds both foods, after one that held the first; the
    /// same file again after an import of it was killed, or after a cut copy of it). Made at the
    /// first such id, sized for every entry the journal holds; nil outside an import. A false
    /// "met" (one id in about 1,400) keeps an edit of a record beside the version it edits.
    private var metBefore: IdBloomFilter?

    private func noteMetBefore(_ key: SampleIdKey.Key, storedSequence: Int64) {
        guard let twinsAfter, storedSequence <= twinsAfter, case .uuid(let high, let low) = key else { return }
        if metBefore == nil { metBefore = IdBloomFilter(capacity: Int(twinsAfter)) }
        metBefore!.insert(high, low)
    }

    private func wasMetBefore(_ key: SampleIdKey.Key) -> Bool {
        guard let metBefore, case .uuid(let high, let low) = key else { return false }
        return metBefore.contains(high, low)
    }

    static func isFingerprintId(_ id: String) -> Bool { uuidVersion(id) == UInt8(ascii: "5") }

    /// The version digit of a UUID-shaped id (36 characters), nil for any other id.
    private static func uuidVersion(_ id: String) -> UInt8? {
        let utf8 = id.utf8
        guard utf8.count == 36 else { return nil }
        return utf8[utf8.index(utf8.startIndex, offsetBy: 14)]
    }

    /// Whether `id` is a UUID of version 8 (custom): one a source derived from what a reading
    /// stands for (a Health Auto Export period) rather than the producer's own.
    static func isDerivedId(_ id: String) -> Bool { uuidVersion(id) == UInt8(ascii: "8") }

    /// The sample of the entry at `sequence` (the stored version of a sample met again); nil
    /// when that entry was pruned or is a tombstone.
    func storedSample(at sequence: Int64) throws -> Sample? {
        payloadAt.bind(1, sequence)
        defer { payloadAt.reset() }
        guard try payloadAt.step(), let payload = payloadAt.blob(0),
              case .sample(let stored) = try SampleCodec.decode(payload) else { return nil }
        return stored
    }

    /// The sequence of the entry stored under `id` at the key second `start`, if any.
    func storedSequence(of id: String, start: Int64) throws -> Int64? {
        SampleIdKey.bind(lookupId, 1, id)
        lookupId.bind(2, start)
        defer { lookupId.reset() }
        return try lookupId.step() ? lookupId.int64(1) : nil
    }

    /// Whether a sample is stored under `id` at the key second `start`.
    private func isStored(_ id: String, start: Int64) throws -> Bool {
        SampleIdKey.bind(lookupId, 1, id)
        lookupId.bind(2, start)
        defer { lookupId.reset() }
        return try lookupId.step()
    }

    /// The key second of a sample: its start, floored to whole seconds as fingerprints are.
    static func keySecond(_ sample: Sample) -> Int64 { second(of: sample.start) }

    /// The whole second `time` falls in (floor: before 1970 too).
    static func second(of time: Timestamp) -> Int64 {
        let ms = time.epochMilliseconds
        return ms >= 0 ? ms / 1000 : (ms - 999) / 1000
    }

    /// Whether a tombstone journaled after entry `sequence` deleted the sample `id` names (it, or an
    /// alias of it): a backfill from the journal leaves such a sample out rather than write it back
    /// until the tombstone comes.
    public func isDeleted(_ id: String, after sequence: Int64) throws -> Bool {
        for name in try namesOfReading(id) {
            SampleIdKey.bind(deletedAt, 1, name)
            defer { deletedAt.reset() }
            if try deletedAt.step(), deletedAt.int64(0) > sequence { return true }
        }
        return false
    }

    /// Whether `id` is recorded as deleted and is an alias of a reading stored at `start` under
    /// another id (it was met as that reading before its tombstone).
    private func isDeletedAlias(_ id: String, start: Int64) throws -> Bool {
        let canonical = SampleIdKey.canonicalCase(id)
        SampleIdKey.bind(deletedAt, 1, canonical)
        let deletion = try deletedAt.step() ? deletedAt.int64(0) : nil
        deletedAt.reset()
        // Deleted at all: a sample stored under the id since, at another start, does not bring
        // back the reading its deletion deleted here.
        guard let deletion else { return false }
        for other in try namesOfReading(canonical).dropFirst() {
            SampleIdKey.Key(other).bind(lookupId, 1, through: bindings)
            lookupId.bind(2, start)
            defer { lookupId.reset() }
            if try lookupId.step(), lookupId.int64(1) < deletion { return true }
        }
        return false
    }

    /// `id` (in its canonical case) and its aliases: every id the same reading was stored under.
    private func namesOfReading(_ id: String) throws -> [String] {
        var names = [SampleIdKey.canonicalCase(id)]
        SampleIdKey.bind(aliasesOf, 1, names[0])
        defer { aliasesOf.reset() }
        while try aliasesOf.step() {
            if let other = SampleIdKey.read(aliasesOf, 0) { names.append(other) }
        }
        return names
    }

    /// Whether any id was ever deleted (a backfill skips the lookups otherwise).
    public func hasDeletedIds() throws -> Bool {
        try database.scalarInt("SELECT EXISTS(SELECT 1 FROM deleted_ids)") == 1
    }

    /// Whether a tombstone deleted `sample` (one a file brings: a backfill's): its id, or an alias
    /// of it (the same reading under another id), was deleted after the journal stored the id at
    /// the sample's start, or at all when it never did there. A sample stored under the id after its
    /// deletion, at another start, does not bring back what the deletion deleted; the one it
    /// stored is not deleted.
    public func isDeleted(_ sample: Sample) throws -> Bool {
        let id = SampleIdKey.canonicalCase(sample.id)
        return try isDeleted(id, after: storedSequence(of: id, start: Self.keySecond(sample)) ?? 0)
    }

    /// Whether `deleted_ids` held an id when this append began, or took one since (`admit`).
    private var hasDeletedIdsNow = false

    /// Records that entry `sequence` stored a sample under `id`, new at its start, after a
    /// tombstone named the id: the tombstone came before it (Pulso's rule: it blocks no later
    /// sample), so the id is not deleted now (`lookupDeleted`), and a later tombstone naming it
    /// deletes it again (it was dropped as a deletion seen before, and every sink kept the sample).
    /// The deletion's entry stays recorded: what it deleted, at another start, stays deleted
    /// (`isDeleted(_:after:)`).
    private func undelete(_ id: String, at sequence: Int64) throws {
        guard hasDeletedIdsNow else { return }
        SampleIdKey.bind(reviveDeleted, 1, SampleIdKey.canonicalCase(id))
        reviveDeleted.bind(2, sequence)
        try reviveDeleted.run()
    }

    /// The tombstone to store (its ids not tombstoned before, with their aliases), or nil when nothing is new.
    private func admit(_ tombstone: Tombstone, sequence: Int64, result: inout AppendResult) throws -> Tombstone? {
        var ids: [String] = []
        // The ids the entry holds; every id the tombstone names is recorded as deleted, also one
        // an earlier name's aliases brought into the entry already.
        var included = Set<String>()
        var named = Set<String>()
        // Gathered here and recorded once: appended to the record at each id, a deletion of many of
        // another user's ids took quadratic time (minutes for 100,000) under the journal's write lock.
        var refused: [String] = []
        defer {
            if !refused.isEmpty, let admittingPosition { result.refusedItems[admittingPosition] = .deletion(refused) }
        }
        for id in tombstone.ids.map(SampleIdKey.canonicalCase) where named.insert(id).inserted {
            guard try mayDelete(id, for: tombstone.userId) else {
                result.refusedOtherUsersIds += 1
                refused.append(id)
                continue
            }
            SampleIdKey.bind(lookupDeleted, 1, id)
            let known = try lookupDeleted.step()
            lookupDeleted.reset()
            guard !known else { continue }
            SampleIdKey.bind(insertDeleted, 1, id)
            insertDeleted.bind(2, sequence)
            try insertDeleted.run()
            hasDeletedIdsNow = true
            if included.insert(id).inserted { ids.append(id) }
            result.deletedIds += 1
            // An alias's other names must go too, wherever a sink stored them, when the
            // tombstone's user may delete them.
            var others: [String] = []
            SampleIdKey.bind(aliasesOf, 1, id)
            while try aliasesOf.step() {
                if let other = SampleIdKey.read(aliasesOf, 0), included.insert(other).inserted { others.append(other) }
            }
            aliasesOf.reset()
            for other in others {
                if try mayDelete(other, for: tombstone.userId) { ids.append(other) } else { result.refusedOtherUsersIds += 1 }
            }
        }
        return ids.isEmpty ? nil : Tombstone(ids: ids, userId: tombstone.userId)
    }

    private func writeEntry(sequence: Int64, source: String, type: String?, received: Int64, firstOfId: Bool) throws {
        insertEntry.bind(1, sequence)
        bindings.bind(insertEntry, 2, source)
        bindings.bind(insertEntry, 3, type)
        insertEntry.bind(4, received)
        writer.bytes.withUnsafeBytes { bindings.bind(insertEntry, 5, blob: $0) }
        insertEntry.bind(6, Int64(firstOfId ? 1 : 0))
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
                                   payload: readEntries.blob(3) ?? [], isFirstOfId: readEntries.int64(4) != 0))
        }
        return out
    }

    /// Entries after `sequence`, whatever their type: the lag `/metrics` reports (a count the
    /// index answers; `status` counts only what each sink's routes select).
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

    /// Records the last error of `sink` (shown by `status`), keeping its cursor; nil clears it.
    public func setLastError(sink: String, _ message: String?) throws {
        let statement = try database.prepare("""
            INSERT INTO cursors(sink, seq, updated_at, last_error) VALUES (?1, 0, ?2, ?3)
            ON CONFLICT(sink) DO UPDATE SET last_error = excluded.last_error, updated_at = excluded.updated_at
            """)
        statement.bind(1, sink)
        statement.bind(2, Int64(Date().timeIntervalSince1970 * 1000))
        statement.bind(3, message)
        try statement.run()
    }

    /// Forgets the dead letters of `sink` at `sequences` (a backfill wrote those entries again).
    public func clearDeadLetters(sink: String, sequences: [Int64]) throws {
        let statement = try database.prepare("DELETE FROM dead_letters WHERE sink = ?1 AND seq = ?2")
        try database.transaction {
            for sequence in sequences {
                statement.bind(1, sink)
                statement.bind(2, sequence)
                try statement.run()
                statement.reset()
            }
        }
    }

    /// Forgets the dead letters of `sink` whose entries the journal no longer holds (pruned: a
    /// backfill from a file brought their samples back); returns how many.
    @discardableResult
    public func clearPrunedDeadLetters(sink: String) throws -> Int {
        let statement = try database.prepare(
            "DELETE FROM dead_letters WHERE sink = ?1 AND seq NOT IN (SELECT seq FROM entries)")
        statement.bind(1, sink)
        try statement.run()
        return database.changes
    }

    /// Parks the entry `sequence` as a dead letter of `sink` with the reason it was refused.
    public func addDeadLetter(sink: String, sequence: Int64, reason: String) throws {
        try addDeadLetters(sink: sink, [(sequence, reason)])
    }

    /// Parks the entries `letters` names as dead letters of `sink`, each with its reason, in one
    /// commit (a receiver that refused a body's thousands of elements: one sync, not thousands).
    public func addDeadLetters(sink: String, _ letters: [(sequence: Int64, reason: String)]) throws {
        try database.transaction {
            let statement = try database.prepare(
                "INSERT OR REPLACE INTO dead_letters(sink, seq, reason, at) VALUES (?1, ?2, ?3, ?4)")
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for (sequence, reason) in letters {
                statement.bind(1, sink)
                statement.bind(2, sequence)
                statement.bind(3, reason)
                statement.bind(4, now)
                try statement.run()
                statement.reset()
            }
        }
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

    /// The state of each sink in `names`, in that order. A sink without a cursor row (it has
    /// neither written nor failed yet) reads as cursor 0, nothing written, no error.
    public func sinkStates(named names: [String]) throws -> [SinkState] {
        let recorded = Dictionary(uniqueKeysWithValues: try sinkStates().map { ($0.sink, $0) })
        return try names.map { name in
            if let state = recorded[name] { return state }
            return SinkState(sink: name, deadLetters: Int64(try deadLetters(sink: name).count))
        }
    }

    // MARK: - Pruning

    /// Deletes entries every sink in `sinks` has passed and that are older than `retainSeconds`
    /// (nil: keep forever). Identities stay, so a pruned sample is still recognised.
    ///
    /// Entries are appended in the order they are received, so the old ones are the first ones:
    /// what goes is the run of entries up to the first one young enough to keep, found reading in
    /// sequence order, and deleted as a range. Every entry used to be read to test its age (a scan
    /// of the whole journal at the end of every import). Where the order and the times disagree (a
    /// clock set back, two processes appending at once), an old entry after a younger one waits for
    /// a later prune: nothing is pruned early.
    /// With `maximum`, at most that many entries go in one call (a short write lock, for the
    /// daemon, whose pushes wait for it); the rest at the next. The kinds of the entries that go
    /// are recorded in the same transaction (`recordPrunedKinds`: one more read of them, 0.2 s for
    /// 1M entries), so that a sink that lacks them is told by what its routes select.
    @discardableResult
    public func prune(sinks: [String], retainSeconds: Double?, maximum: Int64? = nil, now: Date = Date()) throws -> Int {
        guard let retainSeconds else { return 0 }
        var floor = try head()
        for sink in sinks { floor = min(floor, try cursor(sink: sink) ?? 0) }
        if let maximum, let oldest = try oldestRetained() { floor = min(floor, oldest + maximum - 1) }
        let cutoff = Int64((now.timeIntervalSince1970 - retainSeconds) * 1000)
        let firstKept = try database.prepare(
            "SELECT seq FROM entries WHERE seq <= ?1 AND received_at >= ?2 ORDER BY seq LIMIT 1")
        firstKept.bind(1, floor)
        firstKept.bind(2, cutoff)
        let last = try firstKept.step() ? firstKept.int64(0) - 1 : floor
        firstKept.reset()
        // What kinds of entries go is recorded with their going, or neither is: a sink that lacks
        // them is told by the kinds its routes select (`lackingRanges`).
        return try database.transaction {
            guard let oldest = try oldestRetained(), oldest <= last else { return 0 }
            try recordPrunedKinds(from: oldest, through: last)
            let statement = try database.prepare("DELETE FROM entries WHERE seq <= ?1")
            statement.bind(1, last)
            try statement.run()
            return database.changes
        }
    }

    /// The entries after `sequence` grouped by type (nil: tombstones) and source, for `status`:
    /// what no route selects, and what each sink's routes still have to deliver.
    /// In the order `GROUP BY type, source` gives (tombstones first).
    ///
    /// Counted here, not by SQLite's `GROUP BY`: without an index on (type, source) that sorted every
    /// entry in a temporary b-tree (400 MB at 4.7M entries in memory; in a temporary file, which a
    /// read-only container may lack). Entries come in runs of one type and source, so a run's
    /// strings are made once.
    public func entryCountsByTypeAndSource(after sequence: Int64 = 0) throws -> [(type: String?, source: String, count: Int64)] {
        struct Group: Hashable {
            var type: String?
            var source: String
        }
        let statement = try database.prepare("SELECT type, source FROM entries WHERE seq > ?1")
        statement.bind(1, sequence)
        var counts: [Group: Int64] = [:]
        var current: Group?
        var run: Int64 = 0
        while try statement.step() {
            if let group = current, statement.textEquals(0, group.type), statement.textEquals(1, group.source) {
                run += 1
                continue
            }
            if let group = current { counts[group, default: 0] += run }
            current = Group(type: statement.string(0), source: statement.string(1) ?? "")
            run = 1
        }
        if let group = current { counts[group, default: 0] += run }
        return counts.map { (type: $0.key.type, source: $0.key.source, count: $0.value) }.sorted {
            ($0.type == nil ? 0 : 1, $0.type ?? "", $0.source) < ($1.type == nil ? 0 : 1, $1.type ?? "", $1.source)
        }
    }

    /// How many entries after `sequence` `selects` (a sink's routes: type, nil for a tombstone, and
    /// source) takes: what that sink has yet to deliver.
    public func entryCount(after sequence: Int64, selectedBy selects: (_ type: String?, _ source: String) -> Bool) throws -> Int64 {
        try entryCountsByTypeAndSource(after: sequence).reduce(0) { sum, group in
            selects(group.type, group.source) ? sum + group.count : sum
        }
    }

    /// What `sink` has yet to deliver after its `cursor`: the entries its routes select (every
    /// tombstone goes to every sink), or every entry when `routes` is nil. `status` and the admin
    /// endpoint's `/metrics` and `/status` report this as its lag. (A sink whose worker has not
    /// yet run since its routes changed has other entries after its cursor, which it only passes over.)
    public func lag(ofSink sink: String, after cursor: Int64, routes: RouteTable?) throws -> Int64 {
        guard let routes else { return try countEntries(after: cursor) }
        return try entryCount(after: cursor) { type, source in
            guard let type else { return true }
            return routes.selects(sink: sink, type: type, source: source)
        }
    }

    /// How many entries were pruned before `sink`, at `cursor`, wrote them (the sum of
    /// `lackingRanges(sink:cursor:routes:)`).
    public func prunedEntryCount(sink: String, cursor: Int64, routes: RouteTable?) throws -> Int64 {
        Self.entryCount(of: try lackingRanges(sink: sink, cursor: cursor, routes: routes))
    }

    /// Aggregate counts for `status`: the entries held; the sample ids known (`sample_ids`: they stay
    /// when their entries are pruned, and when a tombstone deletes them; an id at two start times
    /// counts twice); the ids deleted (`deleted_ids`, also ids no sample ever had).
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
