import Foundation
import HealthRouterCore

/// What to do when the journal cannot be opened, by why: a file that is not a database (damaged,
/// or another file under its name) is not a permissions problem.
enum JournalOpenHint {
    static func hint(for error: any Error, stateDirectory: String) -> String? {
        if error is JournalIncompatible { return nil }
        if let error = error as? SQLiteError, [11, 26].contains(error.code & 0xFF) {
            // SQLITE_CORRUPT, SQLITE_NOTADB.
            return "\(error.path) is not a journal healthrouter can read (damaged, or another file under its name): "
                + "move it aside and run again; the stores keep what they hold, and importing the export again brings "
                + "the journal back"
        }
        if let error = error as? SQLiteError, error.code & 0xFF == 8 {
            // SQLITE_READONLY: the file, its -wal or -shm, or the folder (another user made them).
            return "the journal's files (journal.sqlite, -wal, -shm) or the folder \(stateDirectory) cannot be written by "
                + "this user: give them to it (chown -R \(ProcessInfo.processInfo.userName) \(stateDirectory))"
        }
        if let error = error as? SQLiteError, error.code & 0xFF == 13 {
            return "the disk holding \(stateDirectory) is full: free some space, then start again"
        }
        return "check that the state directory \(stateDirectory) is writable and not used by another healthrouter"
    }
}

extension JournalOpenHint {
    /// Writes one row to the journal of `stateDirectory` (the daemon's start): a journal that
    /// opens but takes no write (another user's files, a full disk) is a `CommandFailure` (exit
    /// 73) with the hint, before a daemon would answer every push 500.
    static func checkWritable(_ stateDirectory: String) throws {
        do {
            try Journal(stateDirectory: stateDirectory).noteDaemonStart()
        } catch let error where error is SQLiteError || error is JournalIncompatible {
            throw CommandFailure(message: "cannot write the journal in \(stateDirectory): \(error)",
                                 hint: hint(for: error, stateDirectory: stateDirectory), code: .cannotCreate)
        }
    }

    /// Opens the journal of `stateDirectory` with `role`; one that cannot be opened (damaged, another
    /// file under its name, a newer healthrouter's) is a `CommandFailure` (exit 73) with the hint.
    static func open(_ stateDirectory: String, role: Journal.Role) throws -> Journal {
        do {
            return try Journal(stateDirectory: stateDirectory, role: role)
        } catch let error where error is SQLiteError || error is JournalIncompatible {
            throw CommandFailure(message: "cannot open the journal in \(stateDirectory): \(error)",
                                 hint: hint(for: error, stateDirectory: stateDirectory), code: .cannotCreate)
        }
    }
}
