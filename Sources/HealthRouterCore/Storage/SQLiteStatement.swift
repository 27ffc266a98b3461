import Glibc
import CSQLite3

/// A prepared statement. Bind indexes start at 1, column indexes at 0.
public final class SQLiteStatement {
    private let database: SQLiteDatabase
    public let handle: OpaquePointer
    public let sql: String

    init(database: SQLiteDatabase, statement: OpaquePointer, sql: String) {
        self.database = database
        self.handle = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    public func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    public func bind(_ index: Int32, _ value: Double?) {
        if let value, value.isFinite { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    public func bind(_ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(handle, index); return }
        _ = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    sqlite3_bind_text(handle, index, base, Int32(chars.count), swsqlite_transient())
                } else {
                    sqlite3_bind_text(handle, index, "", 0, swsqlite_transient())
                }
            }
        }
    }

    /// Binds UTF-8 bytes as TEXT (copied), without building a String first.
    public func bind(_ index: Int32, text bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) {
            sqlite3_bind_text(handle, index, base, Int32(bytes.count), swsqlite_transient())
        } else {
            sqlite3_bind_text(handle, index, "", 0, swsqlite_transient())
        }
    }

    /// Binds UTF-8 bytes as TEXT (copied), or NULL when nil.
    public func bind(_ index: Int32, text bytes: [UInt8]?) {
        guard let bytes else { sqlite3_bind_null(handle, index); return }
        bytes.withUnsafeBytes { bind(index, text: $0) }
    }

    public func bind(_ index: Int32, blob: UnsafeRawBufferPointer?) {
        guard let blob else { sqlite3_bind_null(handle, index); return }
        sqlite3_bind_blob(handle, index, blob.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(blob.count),
                          swsqlite_transient())
    }

    public func bind(_ index: Int32, blob: [UInt8]?) {
        guard let blob else { sqlite3_bind_null(handle, index); return }
        blob.withUnsafeBytes { bind(index, blob: $0) }
    }

    /// Steps once: true when a row is available, false when done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let failure = database.error(rc, sql)
        sqlite3_reset(handle)
        throw failure
    }

    /// Resets for the next execution and clears bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds nothing further, runs to completion and resets.
    public func run() throws {
        defer { reset() }
        while try step() {}
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// The name of result column `column` (its name in the table, or its `AS` name), "?" when SQLite has none.
    public func columnName(_ column: Int32) -> String { sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "?" }
    public func columnIsText(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_TEXT }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Whether `column` holds `value` byte for byte (nil: NULL), without making a string of it.
    public func textEquals(_ column: Int32, _ value: String?) -> Bool {
        guard let value else { return isNull(column) }
        guard let text = sqlite3_column_text(handle, column) else { return false }
        let count = Int(sqlite3_column_bytes(handle, column))
        var expected = value
        return expected.withUTF8 { bytes in bytes.count == count && (count == 0 || memcmp(bytes.baseAddress!, text, count) == 0) }
    }

    public func blob(_ column: Int32) -> [UInt8]? {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer = sqlite3_column_blob(handle, column) else { return isNull(column) ? nil : [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
