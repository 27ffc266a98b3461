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
        if let error = error as? SQLiteError, error.code & 0xFF == 14, let closed = closedFolder(on: stateDirectory) {
            // SQLITE_CANTOPEN behind a folder this user may not enter: a monitoring user, or a person's
            // login, reading the service's state directory.
            return closedFolderHint(closed)
        }
        return "check that the state directory \(stateDirectory) is writable and not used by another healthrouter"
    }

    /// What to do about `closed`, a folder this user may not enter (`closedFolder(on:)`): its owner
    /// and mode, and the user to run the command as.
    static func closedFolderHint(_ closed: (path: String, owner: uid_t, mode: UInt32)) -> String {
        let name = getpwuid(closed.owner).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
        let owner = name ?? "uid \(closed.owner)"
        return "this user (\(ProcessInfo.processInfo.userName)) may not look into \(closed.path) (\(owner)'s, mode "
            + "\(String(format: "%03o", closed.mode))): run this as \(owner) (sudo -u \(name ?? "'#\(closed.owner)'") "
            + "healthrouter …), or as a user its group lets in"
    }

    /// The first folder on the way to `stateDirectory`, itself included, that this user may not
    /// enter (search permission refused), with its owner and permission bits; nil when it may enter
    /// every one.
    static func closedFolder(on stateDirectory: String) -> (path: String, owner: uid_t, mode: UInt32)? {
        var path = ""
        for component in URL(fileURLWithPath: stateDirectory).standardizedFileURL.path.split(separator: "/") {
            path += "/" + component
            guard access(path, X_OK) != 0, errno == EACCES else { continue }
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return (path, status.st_uid, UInt32(status.st_mode) & 0o777)
        }
        return nil
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
