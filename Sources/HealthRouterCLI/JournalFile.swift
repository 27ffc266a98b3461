import Foundation
import Glibc

/// Whether a state directory holds a journal, for the commands that only read one (`status`,
/// `dump`, a `backfill` from the journal): they create none, and write nothing into an empty file.
/// Under cron or systemd a missing one is mostly another working directory or config than the
/// one imports ran with, not a new install.
enum JournalFile {
    /// How long after it was made an empty journal whose import or daemon lock is held is said to be
    /// one just begun: a new journal's first page is written at once.
    static let justBegunSeconds = 30

    /// Why `stateDirectory` holds no journal to read, as a `CommandFailure` (exit 66): the folder or
    /// `journal.sqlite` is missing, or the file is empty (0 bytes, no `-wal` beside it: a copy or a
    /// restore that failed, a `touch`); nil when it holds one, or when the folder cannot be looked
    /// into (another user's: opening the journal says so). Said with the folder's absolute path
    /// (a relative one is the working directory's), the config `origin` the command used, and
    /// `otherwise`: what else the command can do.
    static func absence(in stateDirectory: String, origin: String, otherwise: String) -> CommandFailure? {
        let path = (stateDirectory as NSString).appendingPathComponent("journal.sqlite")
        let shown = stateDirectory.hasPrefix("/") ? stateDirectory
            : "\(stateDirectory) (\(URL(fileURLWithPath: stateDirectory).standardizedFileURL.path))"
        let elsewhere = "this used the config \(origin): a cron job or service run from another working directory or "
            + "without --config reads another state directory than your imports wrote (a relative state_directory "
            + "is the working directory's): give it their config"
        var status = stat()
        guard stat(path, &status) == 0 else {
            // Not looked into (another user's folder: EACCES): the journal may well be there, and
            // opening it says why it cannot be read (exit 73), not that nothing was imported.
            guard errno == ENOENT else { return nil }
            let missing = stat(stateDirectory, &status) != 0
            return CommandFailure(message: missing ? "there is no state directory \(shown): nothing was imported or run with it"
                                    : "there is no journal in \(shown) yet: nothing was imported or run with it",
                                  hint: "\(elsewhere); before any import, \(otherwise)", code: .noInput)
        }
        var wal = stat()
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_size == 0, stat(path + "-wal", &wal) != 0 || wal.st_size == 0 else {
            return nil
        }
        // An import or a daemon that has just begun makes the file before it writes its first page
        // (within milliseconds). One made longer ago stays empty: with a daemon running, it replaced
        // the journal the daemon has open (a restore that failed), which the daemon goes on writing.
        let holder = ImportLock.holder(of: stateDirectory) ?? DaemonLock.holder(of: stateDirectory)
        let named = holder.map { "healthrouter\($0 == "?" ? "" : " (pid \($0))")" }
        if let named, time(nil) - status.st_mtim.tv_sec < Self.justBegunSeconds {
            return CommandFailure(message: "the journal \(path) is empty (0 bytes): \(named) has just begun writing it",
                                  hint: "run this again in a moment", code: .noInput)
        }
        return CommandFailure(message: "the journal \(path) is empty (0 bytes): nothing was ever written to it",
                              hint: (named.map { "\($0) runs on this state directory and writes a journal this file replaced: "
                                  + "stop it first; " } ?? "")
                                  + "a copy or restore that failed leaves it so: restore it again; or delete it, then "
                                  + "\(otherwise)", code: .noInput)
    }
}
