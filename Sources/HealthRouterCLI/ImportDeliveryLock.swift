import Foundation
import Glibc

/// An import that delivers to the sinks itself (no daemon ran on its state directory when it
/// began): an exclusive `flock` on `<state_directory>/delivery.lock` (which records the holder's
/// pid, then the names of the sinks it delivers to, a line each), taken before the import looks
/// for a daemon and held until it ends. A daemon started meanwhile on that state directory opens
/// none of those sinks while it is held (`SinkWorker.Settings.deliveredElsewhere`): both delivered
/// every batch, and each counted it in the sink's rows written. Its other sinks (the import's
/// config lacks them) it delivers to as usual.
///
/// No race is left: an import that finds a daemon lets the lock go and delivers nothing, so the lock
/// is held by a delivering import only from before any daemon beside it started.
final class ImportDeliveryLock {
    private let descriptor: Int32

    /// Takes the lock of `stateDirectory` (which exists) for the import delivering to `sinks`. Nil
    /// when the lock file cannot be made (a read-only state directory: the import then fails at its
    /// journal) or another process holds it (an import still ending, whose own lock this one waited for).
    init?(stateDirectory: String, sinks: [String]) {
        let descriptor = open(Self.path(stateDirectory), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        DaemonLock.recordPid(in: descriptor, then: sinks)
    }

    deinit {
        close(descriptor)
    }

    private static func path(_ stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("delivery.lock")
    }

    /// The pid of the import delivering to `sink` of `stateDirectory` (`"?"` when its file names
    /// none); nil when none does. An import whose file lists no sinks is taken to deliver to all.
    static func holder(of stateDirectory: String, sink: String) -> String? {
        let path = path(stateDirectory)
        guard let pid = DaemonLock.holder(ofLockFile: path) else { return nil }
        guard let sinks = (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").dropFirst(),
              !sinks.isEmpty else { return pid }
        return sinks.contains(Substring(sink)) ? pid : nil
    }
}
