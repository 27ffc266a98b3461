import Foundation
import Glibc

/// An import that delivers to the sinks itself (no daemon ran on its state directory when it
/// began): an exclusive `flock` on `<state_directory>/delivery.lock` (which records the holder's
/// pid), taken before the import looks for a daemon and held until it ends. A daemon started
/// meanwhile on that state directory opens no sink while it is held (`SinkWorker.Settings.deliveredElsewhere`):
/// both delivered every batch, and each counted it in the sink's rows written.
///
/// No race is left: an import that finds a daemon lets the lock go and delivers nothing, so the lock
/// is held by a delivering import only from before any daemon beside it started.
final class ImportDeliveryLock {
    private let descriptor: Int32

    /// Takes the lock of `stateDirectory` (which exists). Nil when the lock file cannot be made (a
    /// read-only state directory: the import then fails at its journal) or another process holds
    /// it (an import still ending, whose own lock this one waited for).
    init?(stateDirectory: String) {
        let descriptor = open(Self.path(stateDirectory), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        DaemonLock.recordPid(in: descriptor)
    }

    deinit {
        close(descriptor)
    }

    private static func path(_ stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("delivery.lock")
    }

    /// The pid of the import delivering to `stateDirectory`'s sinks (`"?"` when its file names
    /// none); nil when none does.
    static func holder(of stateDirectory: String) -> String? {
        DaemonLock.holder(ofLockFile: path(stateDirectory))
    }
}
