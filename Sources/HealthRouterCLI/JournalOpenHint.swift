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
        return "check that the state directory \(stateDirectory) is writable and not used by another healthrouter"
    }
}

extension JournalOpenHint {
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
