import Foundation
import HealthRouterCore

/// The `ndjson` sink: a folder in Pulso's reference-server layout (pulso-protocol.md §1.9),
/// `<directory>/<stem>.ndjson` per type and `_deleted.ndjson` for tombstones, one compact
/// JSON object a line (`PulsoJSONEncoder`'s fields plus `receivedAt`).
///
/// - A re-delivery never writes a second line for an id: `.healthrouter-index.sqlite` keeps,
///   per id, the content hash and journal sequence of its last line. A sample is appended
///   when its id is new, was deleted before, or its content changed (readers take the last
///   line of an id); not when the index holds the same content or a later journal sequence
///   (items delivered around the journal, `JournalEntry.isFromJournal` false, are judged by
///   their content alone).
///   A tombstone line lists only the ids not already recorded as deleted.
/// - `write` returns after the lines are fsynced and the index committed, with the cursor,
///   in one transaction; `prepare` returns that cursor.
/// - After a crash between the append and the index commit, `prepare` cuts the
///   unacknowledged lines off again (`NDJSONIndexRecovery`); their entries come again.
/// - One process at a time: `prepare` takes an exclusive lock on `.healthrouter-index.lock`.
/// - At most `maximumOpenFiles` files are open at once, whatever the number of types (the least
///   recently written is closed, after its fsync); recovery opens one file at a time.
/// - Only regular files the running user owns are written, opened without following a symbolic
///   link (`NDJSONRegularFile`); the folder is made 0700, and one others may write or another user
///   owns is refused (`NDJSONFolder`).
/// - Every sample can be written, so this sink never throws `SinkError.rejected`.
public final class NDJSONSink: Sink {
    public struct Configuration: Decodable, Sendable {
        /// The folder of `.ndjson` files; created when missing. A leading `~` is the context's
        /// home directory: the sink's `configuration` holds the directory expanded.
        public var directory: String

        public init(directory: String) {
            self.directory = directory
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case directory
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            directory = try c.decodeNonEmptyString(forKey: .directory, purpose: "the folder to write, e.g. ./healthrouter-data/ndjson")
        }
    }

    public let configuration: Configuration
    let logger: Logger
    private(set) var index: NDJSONIndex?
    private var files: [String: NDJSONFile] = [:] {
        didSet { lastFile = nil }
    }
    private var stems: [String: String] = [:]
    /// How many `.ndjson` files the sink keeps open at most.
    public static let maximumOpenFiles = 64
    /// The files of `files` whose descriptors are open.
    private var openFiles = NDJSONOpenFiles(limit: NDJSONSink.maximumOpenFiles)
    private var line = JSONWriter(capacity: 4096)
    /// Set when a failed batch may have left bytes the index does not cover.
    private var needsRecovery = false
    /// The descriptor holding the folder's lock, -1 when not held.
    private var lockDescriptor: Int32 = -1
    /// The lock file this writer locked, which nothing replaces: gone (the folder deleted while
    /// the daemon runs), every later line would go into files nobody can open again.
    private var lockedFile: FileIdentity?
    /// The index's cursor and whether it holds foreign lines, as last committed.
    private var storedCursor: Int64?
    private var foreignLines = false

    /// The sink's name in the config, for the commands a message gives.
    let name: String

    public init(configuration: Configuration, context: PluginContext) {
        var expanded = configuration
        expanded.directory = context.expandingTilde(configuration.directory)
        self.configuration = expanded
        self.name = context.name
        self.logger = context.logger.with("sink", context.name)
    }

    /// Whether `prepare()` made the folder's index (`Sink.createdItsStore`).
    public private(set) var createdItsStore = false

    public func prepare() throws -> Int64? {
        if let problem = StorePath.folderProblem(configuration.directory, key: "directory") {
            throw SinkError.misconfigured(problem)
        }
        do {
            try NDJSONFolder.prepare(configuration.directory)
            try lockDirectory()
            let indexPath = configuration.directory + "/" + NDJSONIndex.fileName
            // SQLite follows a symbolic link, and makes the files it names: none is taken.
            for suffix in ["", "-wal", "-shm"] { try NDJSONRegularFile.refuseUnlessRegular(indexPath + suffix) }
            createdItsStore = !FileManager.default.fileExists(atPath: indexPath)
            let index = try NDJSONIndex(path: indexPath)
            self.index = index
            try recover(index)
            return storedCursor ?? 0
        } catch let error as SinkError {
            throw error
        } catch {
            throw SinkError.unavailable("\(error)")
        }
    }

    /// Set by `prepareForReading()` for a folder this process may not write: what its index holds
    /// (nothing, in a folder without one), for `readBack` to read the files as `prepare()`'s
    /// recovery would leave them.
    private(set) var readOnlyView: NDJSONIndex.ReadOnlyView?

    /// Opens the folder to be read only (`ReadableSink`), whether this process may write it or not:
    /// nothing is written, no recovery runs; the index is read as it is (`NDJSONIndex.readOnlyView`)
    /// and `readBack` reads the files as the recovery would leave them (see there). A shared lock
    /// on `.healthrouter-index.lock` keeps writers from starting while it reads (several readers
    /// share it); when a writer holds the folder already (a running daemon), what its index
    /// committed is read, nothing past it.
    public func prepareForReading() throws {
        let directory = configuration.directory
        let indexPath = directory + "/" + NDJSONIndex.fileName
        let lockPath = directory + "/.healthrouter-index.lock"
        var writerActive = false
        if lockDescriptor < 0, FileManager.default.fileExists(atPath: lockPath) {
            let fd = open(lockPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 {
                logger.warning("\(lockPath) cannot be opened (\(String(cString: strerror(errno)))): reading without the lock")
            } else if flock(fd, LOCK_SH | LOCK_NB) == 0 {
                lockDescriptor = fd
            } else {
                _ = Foundation.close(fd)
                writerActive = true
                logger.info("another healthrouter process is writing \(directory): reading what its index committed")
            }
        }
        guard FileManager.default.fileExists(atPath: indexPath) else {
            if writerActive {
                throw SinkError.unavailable("another healthrouter process is indexing \(directory): read it again in a moment")
            }
            readOnlyView = NDJSONIndex.ReadOnlyView()
            return
        }
        do {
            readOnlyView = try NDJSONIndex.readOnlyView(of: indexPath)
            readOnlyView?.writerActive = writerActive
        } catch let error as SQLiteError where error.code & 0xff == 14 || error.code & 0xff == 8 {
            // SQLITE_CANTOPEN, SQLITE_READONLY: no retry opens it.
            throw SinkError.misconfigured(error.description + " (\(indexPath) opened to be read only)")
        } catch let error as SQLiteError {
            throw SinkError.unavailable(error.description + " (\(indexPath) opened to be read only)")
        }
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        guard let index else { throw SinkError.unavailable("\(configuration.directory): write before prepare") }
        // A failed write makes the worker open the sink again: a new folder, with no cursor, which
        // the journal fills again (its warning says so).
        if let lockedFile, !lockedFile.isStill(at: configuration.directory + "/.healthrouter-index.lock") {
            throw SinkError.unavailable("\(configuration.directory) was deleted or replaced while healthrouter wrote it: "
                                            + "opening it again")
        }
        do {
            if needsRecovery { try recover(index) }
            try append(entries, cursor: cursor, index: index)
        } catch let error as SinkError {
            throw error
        } catch {
            throw SinkError.unavailable("\(error)")
        }
    }

    deinit { close() }

    public func close() {
        for file in files.values { file.close() }
        files = [:]
        openFiles.removeAll()
        index = nil
        readOnlyView = nil
        if lockDescriptor >= 0 { _ = Foundation.close(lockDescriptor) }
        lockDescriptor = -1
        lockedFile = nil
    }

    /// Two writers appending to one folder would interleave lines and corrupt the index.
    private func lockDirectory() throws {
        guard lockDescriptor < 0 else { return }
        let path = configuration.directory + "/.healthrouter-index.lock"
        let fd: Int32
        do {
            fd = try NDJSONRegularFile.open(path, O_RDWR, creatingWith: 0o644).descriptor
        } catch let error as NDJSONFileError where [EACCES, EROFS, EPERM].contains(error.code) {
            // Not a store that is down: retrying will not help until someone changes the folder.
            if error.code == EROFS {
                throw SinkError.misconfigured("\(configuration.directory) is on a read-only file system: "
                                                  + StorePath.readOnlyMountAdvice(key: "directory"))
            }
            throw SinkError.misconfigured("\(configuration.directory) is not writable by this process (\(path): "
                                              + "\(String(cString: strerror(error.code)))): fix the folder's permissions, "
                                              + "or set directory to a folder it may write")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            _ = Foundation.close(fd)
            throw SinkError.unavailable("\(configuration.directory) is in use by another healthrouter process (\(path) is "
                                            + "locked): a daemon, an import, a backfill or a migration writing it, or a sink of "
                                            + "another config on the same folder (give each its own)")
        }
        lockDescriptor = fd
        lockedFile = FileIdentity(path: path)
    }

    // MARK: - Writing

    private func append(_ entries: [JournalEntry], cursor: Int64, index: NDJSONIndex) throws {
        let receivedAtSuffix = Self.receivedAtSuffix()
        // Entries past the stored cursor, delivered by the journal's worker moving the cursor
        // on, were never written here (the journal passes each new or changed sample once):
        // no lookups, their rows appended to `ids` without its key index. A re-delivery
        // (backfill, migration, a reset cursor) or a folder with foreign lines is checked
        // against `ids` first.
        let known = storedCursor ?? 0
        // A batch at or below the stored cursor is a re-delivery: a backfill, a migration, or a
        // new journal (its state directory recreated) whose numbers say nothing of what the folder
        // holds. The folder then holds lines this journal's numbering does not order, so from
        // now on every batch is checked, not only the first one below the old cursor.
        if !foreignLines, !entries.isEmpty, cursor <= known || (entries.first?.sequence ?? .max) <= known {
            try index.markForeignLines()
            foreignLines = true
        }
        let fresh = !foreignLines && cursor > known && (entries.first?.sequence ?? .max) > known
        if fresh { try index.dropKeyIndex() } else { try index.buildKeyIndex() }
        // What the index will hold once the batch is committed; also the state later
        // entries of the batch are judged against.
        var updates: [String: NDJSONIndex.Entry] = [:]
        // Fresh entries' rows, in journal order (an id's last row is its state).
        var appended: [(id: String, entry: NDJSONIndex.Entry)] = []
        var touched: [NDJSONFile] = []

        func entry(for id: String) throws -> NDJSONIndex.Entry? {
            if let pending = updates[id] { return pending }
            return try index.lookup(id)
        }
        func buffer(_ stem: String) -> NDJSONFile {
            let file = self.file(for: stem)
            if file.buffer.isEmpty { touched.append(file) }
            return file
        }

        if !fresh { try index.database.execute("BEGIN") }
        do {
            // Entries are read in place: a copy of each would retain every string of its sample.
            try entries.withUnsafeBufferPointer { entries in
                for position in entries.indices {
                    let sequence = entries[position].sequence
                    // An item delivered around the journal (`migrate`, `backfill --from`) carries a
                    // read position, not a journal sequence: its content decides, and its line is
                    // indexed at sequence 0, so no later journal entry is taken for an older one.
                    let fromJournal = entries[position].isFromJournal
                    let ordering = fromJournal ? sequence : 0
                    func isLater(_ stored: Int64) -> Bool { fromJournal && stored >= sequence }
                    switch entries[position].item {
                    case .sample(let sample):
                        line.reset()
                        line.beginObject()
                        PulsoJSONEncoder.writeSampleFields(sample, into: &line, extensions: true)
                        let contentHash = NDJSONLineHash.hash(line.bytes)
                        if fresh {
                            appended.append((sample.id, NDJSONIndex.Entry(contentHash: contentHash, sequence: sequence)))
                        } else {
                            let known = try entry(for: sample.id)
                            if let known, isLater(known.sequence) || known.contentHash == contentHash { continue }
                            updates[sample.id] = NDJSONIndex.Entry(contentHash: contentHash, sequence: ordering, row: known?.row)
                        }
                        let file = buffer(stem(forType: sample.type))
                        file.buffer.append(contentsOf: line.bytes)
                        file.buffer.append(contentsOf: receivedAtSuffix)
                    case .tombstone(let tombstone):
                        var deleted: [String] = []
                        var seen = Set<String>()
                        for id in tombstone.ids {
                            if fresh {
                                guard seen.insert(id).inserted else { continue }
                                appended.append((id, NDJSONIndex.Entry(contentHash: nil, sequence: sequence)))
                            } else {
                                let known = try entry(for: id)
                                if let known, isLater(known.sequence) || known.contentHash == nil { continue }
                                updates[id] = NDJSONIndex.Entry(contentHash: nil, sequence: ordering, row: known?.row)
                            }
                            deleted.append(id)
                        }
                        guard !deleted.isEmpty else { continue }
                        line.reset()
                        line.beginObject()
                        line.key("deleted")
                        line.beginArray()
                        for id in deleted { line.string(id) }
                        line.endArray()
                        line.field("userId", tombstone.userId)
                        let file = buffer(NDJSONFileStem.deleted)
                        file.buffer.append(contentsOf: line.bytes)
                        file.buffer.append(contentsOf: receivedAtSuffix)
                    }
                }
            }
            if !fresh { try index.database.execute("COMMIT") }
        } catch {
            if !fresh { try? index.database.execute("ROLLBACK") }
            for file in touched { file.buffer.removeAll(keepingCapacity: true) }
            throw error
        }

        guard !touched.isEmpty else {
            try index.database.transaction { try index.store(cursor: cursor) }
            storedCursor = cursor
            return
        }
        do {
            try index.setInFlight(true)
            needsRecovery = true
            for file in touched {
                // Registered also when the flush failed after opening it: the bound holds.
                defer { openFiles.used(file) }
                try file.flush()
            }
            if touched.contains(where: \.created) {
                try Self.syncDirectory(configuration.directory)
                for file in touched { file.directoryEntrySynced() }
            }
            try index.database.transaction {
                for (id, entry) in appended { try index.store(id, entry) }
                for (id, entry) in updates { try index.store(id, entry) }
                for (stem, file) in files where !file.buffer.isEmpty {
                    try index.store(stem: stem, covered: file.pendingLength)
                }
                try index.store(cursor: cursor)
            }
        } catch {
            // Take the batch back out of the files, so the retry writes it once.
            for file in touched { try? file.discardUncommitted() }
            throw error
        }
        for file in touched { file.commit() }
        needsRecovery = false
        storedCursor = cursor
    }

    private func recover(_ index: NDJSONIndex) throws {
        for file in files.values { file.close() }
        files = [:]
        openFiles.removeAll()
        let summary = try NDJSONIndexRecovery.reconcile(directory: configuration.directory, index: index)
        if summary.rebuilt {
            logger.warning("a file in \(configuration.directory) is shorter than the index says: index rebuilt from"
                           + " the files; run a backfill of this sink if samples are missing")
        }
        if summary.truncatedBytes > 0 {
            logger.info("removed \(summary.truncatedBytes) bytes of an unacknowledged batch; it will be written again")
        }
        if summary.indexedLines > 0 { logger.info("indexed \(summary.indexedLines) lines found in the files") }
        if summary.unreadableLines > 0 {
            logger.warning("\(summary.unreadableLines) lines in \(configuration.directory) are not sample or tombstone objects")
        }
        let covered = try index.coveredLengths()
        // Objects only: each file opens at its first flush (`openFiles` bounds how many stay open).
        for (stem, length) in covered {
            files[stem] = NDJSONFile(path: NDJSONIndexRecovery.path(configuration.directory, stem), committedLength: length)
        }
        storedCursor = try index.cursor()
        foreignLines = try index.hasForeignLines()
        needsRecovery = false
    }

    private func file(for stem: String) -> NDJSONFile {
        if let last = lastFile, last.stem == stem { return last.file }
        if let file = files[stem] {
            lastFile = (stem, file)
            return file
        }
        let file = NDJSONFile(path: NDJSONIndexRecovery.path(configuration.directory, stem), committedLength: 0)
        files[stem] = file
        return file
    }

    private func stem(forType type: String) -> String {
        // Entries come in runs of one type: the last answer first (a pointer compare for the
        // shared type strings of a batch), then the table.
        if let last = lastStem, last.type == type { return last.stem }
        let stem = stems[type] ?? NDJSONFileStem.stem(forType: type)
        stems[type] = stem
        lastStem = (type, stem)
        return stem
    }

    private var lastStem: (type: String, stem: String)?
    private var lastFile: (stem: String, file: NDJSONFile)?

    /// `,"receivedAt":"<now, local time with offset, seconds>"}` and the newline. The offset is
    /// written `+00:00` in UTC too, as the reference server's Python `isoformat()` writes it (Python
    /// before 3.11 cannot read a `Z` back with `fromisoformat`).
    static func receivedAtSuffix(now: Date = Date(), zone: TimeZone = .current) -> [UInt8] {
        let offset = Int32(zone.secondsFromGMT(for: now))
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        var text = TimestampFormatter.iso8601(Timestamp(epochSeconds: seconds, utcOffsetSeconds: offset))
        if text.hasSuffix("Z") { text = text.dropLast() + "+00:00" }
        var writer = JSONWriter(capacity: 48)
        writer.key("receivedAt")
        writer.string(text)
        return [UInt8(ascii: ",")] + writer.bytes + [UInt8(ascii: "}"), 0x0A]
    }

    private static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw NDJSONFileError(path: path, operation: "open", code: errno) }
        defer { _ = Foundation.close(fd) }
        guard fsync(fd) == 0 else { throw NDJSONFileError(path: path, operation: "fsync", code: errno) }
    }
}
