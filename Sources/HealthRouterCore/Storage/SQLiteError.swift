import Glibc
import CSQLite3

/// A failure reported by SQLite, with the database file and the statement concerned.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var code: Int32
    public var message: String
    public var statement: String?

    public var description: String {
        var text = "\(path): \(message) (SQLite code \(code))"
        // What to do, when the file or the disk is at fault.
        if let advice { text += ": " + advice }
        if let statement { text += " in: \(statement.prefix(120))" }
        return text
    }

    /// What a person does about a failure of the file rather than of the data, when there is one.
    var advice: String? {
        switch (code, code & 0xFF) {
        case (1032 /* SQLITE_READONLY_DBMOVED */, _):
            "the file was deleted or replaced while it was open: start healthrouter again (it opens the file anew)"
        case (_, SQLITE_READONLY):
            "this process may not write the file or its folder (SQLite writes -wal and -shm files beside it): "
                + "fix their owner or permissions, or remount the disk read-write"
        case (_, SQLITE_FULL):
            "the disk is full (the file's, or the temporary folder's for large sorts): free some space"
        case (_, SQLITE_IOERR):
            "the disk failed to read or write the file (a failing disk, a drive or network file system gone): "
                + "check the disk (dmesg)"
        default:
            nil
        }
    }

    /// True when the data was at fault (a constraint, a type mismatch, too big)
    /// rather than the database (full disk, I/O error, busy).
    public var isDataError: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CONSTRAINT || primary == SQLITE_MISMATCH || primary == SQLITE_TOOBIG
            || primary == SQLITE_RANGE
    }
}
