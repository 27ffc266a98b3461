import CSQLite3

/// A buffer that holds the text and blob values bound to the statements of one row, which SQLite
/// then reads in place (`SQLITE_STATIC`). `SQLiteStatement.bind` binds them as `SQLITE_TRANSIENT`:
/// SQLite allocates a copy of each value and frees it at the next bind, ten allocations and frees
/// a row for a table of text columns.
///
/// Contract: `reset()` starts a row; until the statements bound through the arena since then
/// have been stepped, and have every such parameter bound again or cleared, the arena must not
/// be reset again. A value that no longer fits is bound as a copy, as `SQLiteStatement` does.
public final class SQLiteBindingArena {
    private let storage: UnsafeMutableRawBufferPointer
    private var used = 0

    public init(capacity: Int = 64 * 1024) {
        storage = .allocate(byteCount: capacity, alignment: 1)
    }

    deinit { storage.deallocate() }

    /// Forgets the values of the last row.
    public func reset() { used = 0 }

    /// Binds `value` at `index` of `statement`, or NULL when nil.
    public func bind(_ statement: SQLiteStatement, _ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(statement.handle, index); return }
        value.withUTF8 { bind(statement, index, text: UnsafeRawBufferPointer($0)) }
    }

    /// Binds UTF-8 `bytes` as TEXT at `index` of `statement`.
    public func bind(_ statement: SQLiteStatement, _ index: Int32, text bytes: UnsafeRawBufferPointer) {
        guard let copy = place(bytes) else { return statement.bind(index, text: bytes) }
        sqlite3_bind_text(statement.handle, index, copy.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
    }

    /// Binds `bytes` as a BLOB at `index` of `statement`.
    public func bind(_ statement: SQLiteStatement, _ index: Int32, blob bytes: UnsafeRawBufferPointer) {
        guard let copy = place(bytes) else { return statement.bind(index, blob: bytes) }
        sqlite3_bind_blob(statement.handle, index, copy, Int32(bytes.count), nil)
    }

    /// Copies `bytes` after the values already placed; nil when they do not fit.
    private func place(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard used + bytes.count <= storage.count, let base = storage.baseAddress else { return nil }
        let start = base + used
        if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
        return UnsafeRawPointer(start)
    }
}
