import Foundation
import HealthRouterCore

/// The `sqlite` sink: the embedded default store, one SQLite file with a table per kind of
/// sample, meant to be queried with `sqlite3` (schema and conventions in the README).
///
/// - `prepare()` opens the file (WAL, `synchronous=NORMAL`), creates what is missing and
///   returns the cursor stored in `sink_cursor`.
/// - `write(_:cursor:)` runs one transaction: every sample upserted by id (a row is written
///   only when something in it changed; a changed workout, correlation or HRV sample gets its
///   child rows anew), every tombstone deletes its ids from every table and records them in
///   `deleted_samples`, and `sink_cursor` is set to `cursor`, in the same transaction.
/// - Data SQLite refuses (a `CHECK` such as `end_at >= start_at`) and instants outside the
///   years 0000–9999 throw `SinkError.rejected`; any other failure `SinkError.unavailable`.
public final class SQLiteSink: Sink {
    public struct Configuration: Decodable, Sendable {
        /// The database file; created with its directory when missing.
        public var path: String

        public init(path: String) {
            self.path = path
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case path
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private(set) var database: SQLiteDatabase?
    private var rows: SQLiteSinkRowWriter?

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.logger = context.logger.with("sink", context.name)
    }

    public func prepare() throws -> Int64? {
        do {
            let directory = (configuration.path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let database = try SQLiteDatabase(path: configuration.path)
            // A larger page cache keeps the id index of a big history in memory during imports;
            // rarer checkpoints write each page of that (randomly updated) index less often.
            try database.execute("PRAGMA cache_size = -8192")
            try database.execute("PRAGMA wal_autocheckpoint = 16384")
            try database.execute("PRAGMA journal_size_limit = 67108864")
            try SQLiteSinkSchema.create(in: database)
            rows = try SQLiteSinkRowWriter(database: database)
            self.database = database
            let cursor = try database.scalarInt("SELECT journal_seq FROM sink_cursor WHERE id = 1")
            logger.debug("opened \(configuration.path)", [("cursor", cursor.map(String.init) ?? "none")])
            return cursor
        } catch let error as SinkError {
            throw error
        } catch let error as SQLiteError {
            throw SinkError.unavailable(error.description)
        } catch {
            throw SinkError.unavailable("\(configuration.path): \(error)")
        }
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        guard let database, let rows else {
            throw SinkError.unavailable("\(configuration.path): write before prepare")
        }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        do {
            try database.transaction {
                for entry in entries {
                    switch entry.item {
                    case .sample(let sample):
                        try rows.write(sample, sequence: entry.sequence)
                    case .tombstone(let tombstone):
                        try rows.delete(tombstone, sequence: entry.sequence, deletedAt: now)
                    }
                }
                try rows.storeCursor(cursor)
            }
        } catch let error as SQLiteError {
            throw error.isDataError ? SinkError.rejected(error.description) : SinkError.unavailable(error.description)
        }
    }

    public func close() {
        rows = nil
        database = nil
    }
}
