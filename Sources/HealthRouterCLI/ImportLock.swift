import Foundation
import Glibc

/// One import at a time on a state directory: an exclusive `flock` on
/// `<state_directory>/import.lock` (which records the holder's pid), held until the import ends;
/// the kernel drops it when the process dies, `kill -9` included. Two imports at once each took
/// what the other journaled meanwhile for part of its own input: of two overlapping exports, a
/// sample the later one changed was kept twice, as two samples, instead of once, as its change.
/// A second import waits for the first, saying so; a daemon beside them is not concerned.
final class ImportLock {
    private let descriptor: Int32

    /// Takes the lock of `stateDirectory` (which exists), waiting while another import holds it.
    /// Nil when the lock file cannot be made (a read-only state directory): the import then fails
    /// at its journal, with that error's own hint.
    init?(stateDirectory: String, waiting: (_ holder: String) -> Void) {
        let path = (stateDirectory as NSString).appendingPathComponent("import.lock")
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = DaemonLock.pid(in: descriptor)
            waiting(holder.isEmpty ? "?" : holder)
            while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        }
        self.descriptor = descriptor
        DaemonLock.recordPid(in: descriptor)
    }

    deinit {
        close(descriptor)
    }

    /// The pid of the import that holds `stateDirectory`'s lock (`"?"` when its file names none);
    /// nil when none runs there.
    static func holder(of stateDirectory: String) -> String? {
        DaemonLock.holder(ofLockFile: (stateDirectory as NSString).appendingPathComponent("import.lock"))
    }
}
