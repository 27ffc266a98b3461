import Glibc
import CSQLite3

/// One SQLite connection. Not thread-safe: one owner, one thread at a time
/// (SQLite itself is built serialized, but statements are not to be shared).
public final class SQLiteDatabase {
    public let path: String
    /// The raw handle, for plugins that call the C API directly.
    public let handle: OpaquePointer

    /// SQLite's allocation statistics (nothing here reads them) take a global mutex on every
    /// malloc and free: off, before the first connection of the process initializes SQLite.
    private static let withoutAllocationStatistics: Void = { _ = swsqlite_disable_memstatus() }()

    /// Opens (creating if missing) the database at `path` in WAL mode. A file it creates gets
    /// `pageSize`-byte pages when given (an existing file keeps its own), else SQLite's 4 KiB.
    /// `immutable` (read-only): SQLite takes the file as one nobody changes while it is open, and
    /// takes no lock: what reads a WAL-mode file in a folder this process may not write, where
    /// SQLite could not make the shared-memory file its locks need (no `-wal` file may hold data).
    public init(path: String, readOnly: Bool = false, immutable: Bool = false, pageSize: Int? = nil) throws {
        _ = Self.withoutAllocationStatistics
        self.path = path
        var db: OpaquePointer?
        var flags = readOnly || immutable ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            name = "file:" + Self.uriPath(path) + "?immutable=1"
        }
        let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(path: path, code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        Self.installStandardBusyHandler(db)
        if !readOnly && !immutable {
            // Before WAL, which fixes the size of a new file for good.
            if let pageSize { try execute("PRAGMA page_size = \(pageSize)") }
            try Self.retryingWhileBusy { try execute("PRAGMA journal_mode=WAL") }
            try execute("PRAGMA synchronous=NORMAL")
        }
    }

    /// Runs `body` again while SQLite answers SQLITE_BUSY without waiting, for up to about 10 s:
    /// turning a new file to WAL needs it alone, and two processes opening it at once (two
    /// imports started together) made one fail with "database is locked", the busy handler not
    /// being called where waiting could deadlock.
    private static func retryingWhileBusy(_ body: () throws -> Void) throws {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.code & 0xff == SQLITE_BUSY && attempt < 1_000 {
                attempt += 1
                usleep(10_000)
            }
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Waits up to about 10 s for another connection's write lock, polling every
    /// millisecond: the default handler's sleeps grow to 100 ms, so a worker
    /// waiting behind a journal append often slept long after the lock was free.
    private static func installStandardBusyHandler(_ db: OpaquePointer) {
        sqlite3_busy_handler(db, { _, attempt in
            guard attempt < 10_000 else { return 0 }
            usleep(1_000)
            return 1
        }, nil)
    }

    /// The size of the database's write-ahead log (`<path>-wal`) in bytes; 0 when it has none.
    public var writeAheadLogBytes: Int64 {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Runs `body` with waits for other connections' locks bounded to about `milliseconds`
    /// (a checkpoint that must not hold writers up for long), then waits as usual again.
    public func withShortLockWaits<T>(milliseconds: Int32, _ body: () throws -> T) rethrows -> T {
        sqlite3_busy_timeout(handle, milliseconds)
        defer { Self.installStandardBusyHandler(handle) }
        return try body()
    }

    /// Opens `path` to be read only by a process that may not write the file or its folder, and
    /// creates nothing beside it (a `-shm`, `-wal` or `-journal` file this process made would be
    /// its own, and lock the store's owner out). By the journal mode its header records:
    /// - rollback journal (a bulk load runs in one): read-only, which takes SQLite's file locks
    ///   and creates nothing; a journal a crashed writer left is refused (`SQLITE_READONLY_ROLLBACK`);
    /// - WAL, with both a `-wal` and a `-shm` file there (a writer has the store open, or left it):
    ///   read-only through them;
    /// - WAL, with a `-wal` holding writes but no `-shm` (a writer stopped short): not at all:
    ///   reading them would make the `-shm` file, so the error (`SQLITE_CANTOPEN`) says what to do;
    /// - else immutable: no lock taken (nothing is being written), so a writer that starts
    ///   meanwhile may tear the read.
    public static func openForReading(path: String) throws -> SQLiteDatabase {
        func size(_ suffix: String) -> Int64? {
            var info = stat()
            return stat(path + suffix, &info) == 0 ? Int64(info.st_size) : nil
        }
        let database: SQLiteDatabase
        if journalModeByte(path) == 1 {
            database = try SQLiteDatabase(path: path, readOnly: true)
        } else if size("-wal") != nil && size("-shm") != nil {
            database = try SQLiteDatabase(path: path, readOnly: true)
        } else if let wal = size("-wal"), wal > 0 {
            throw SQLiteError(path: path, code: SQLITE_CANTOPEN, message: "its -wal file holds writes that only its owner "
                                + "can read (a writer stopped before it could fold them in): open the store once as its "
                                + "owner (sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)'), or read a copy")
        } else {
            database = try SQLiteDatabase(path: path, immutable: true)
        }
        _ = try database.scalarInt("SELECT count(*) FROM sqlite_master")
        return database
    }

    /// Byte 18 of the file's header: 1 for a rollback journal, 2 for WAL; nil when unreadable.
    private static func journalModeByte(_ path: String) -> UInt8? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var byte: UInt8 = 0
        return pread(fd, &byte, 1, 18) == 1 ? byte : nil
    }

    /// `path` as the path of a `file:` URI: every byte but unreserved ones and `/` percent-encoded.
    static func uriPath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(path: path, code: rc, message: message, statement: sql)
        }
    }

    /// Compiles `sql` for repeated use.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql) }
        return SQLiteStatement(database: self, statement: statement, sql: sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Inside another transaction it is a savepoint: its changes commit with the outer one
    /// (several journal appends grouped into one commit), and a throw undoes only its own.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 {
            try execute("SAVEPOINT nested")
            do {
                let result = try body()
                try execute("RELEASE nested")
                return result
            } catch {
                try? execute("ROLLBACK TO nested")
                try? execute("RELEASE nested")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a read transaction: every statement in it reads one snapshot of the
    /// database (in WAL mode, without blocking writers). Ended when `body` returns or throws.
    /// Inside another transaction, `body` simply runs in it.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 { return try body() }
        try execute("BEGIN DEFERRED")
        defer { try? execute("COMMIT") }
        return try body()
    }

    /// The first column of the first row of `sql`, as an integer (nil: no row or NULL).
    public func scalarInt(_ sql: String) throws -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// The first column of the first row of `sql` as text; nil for no row or NULL.
    public func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.string(0)
    }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    func error(_ rc: Int32, _ sql: String?) -> SQLiteError {
        SQLiteError(path: path, code: rc, message: String(cString: sqlite3_errmsg(handle)), statement: sql)
    }
}
