import Synchronization

/// The memory request bodies may take at once, all connections together (`max_upload_memory_mib`):
/// the bodies being received (their `Content-Length`s, taken before any of them is read) and
/// what gzip bodies inflate to (taken as the inflated output grows). Whatever a request takes,
/// it gives back when it no longer holds those bytes.
final class UploadBudget: Sendable {
    /// Bytes in all.
    let capacity: Int
    private let held = Mutex(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes `bytes` if they fit beside what is held now; false, taking nothing, if they do not.
    func take(_ bytes: Int) -> Bool {
        held.withLock { held in
            guard held + bytes <= capacity else { return false }
            held += bytes
            return true
        }
    }

    /// Returns `bytes` taken before.
    func giveBack(_ bytes: Int) {
        held.withLock { $0 -= bytes }
    }

    /// Bytes taken and not given back.
    var bytesHeld: Int { held.withLock { $0 } }
}
