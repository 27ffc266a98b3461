import Foundation

/// Copies the journal's write-ahead log back into the database from a connection and a
/// thread of its own, while the daemon runs.
///
/// SQLite otherwise checkpoints inside the commit that pushes the log past 1,000 pages:
/// with 5,000-sample pushes that is every few requests, and the request whose commit ran it
/// waited for the copy and its fsync. Here the push path's connection does not checkpoint
/// (`PushIngest(autocheckpoint: false)`), and this one runs PASSIVE checkpoints, which never
/// block the writer or the readers: at most every `interval` seconds, sooner never, and only
/// after something was appended (the workers' wake-up signal). Durability is not involved:
/// a commit is durable in the log (fsync) before its request is answered.
///
/// `run(control:)` blocks its thread until `control` asks to stop.
public final class JournalCheckpointer: Sendable {
    private let stateDirectory: String
    private let interval: Double
    private let logger: Logger

    public init(stateDirectory: String, interval: Double = 0.25, logger: Logger) {
        self.stateDirectory = stateDirectory
        self.interval = interval
        self.logger = logger
    }

    public func run(control: WorkerControl) {
        let journal: Journal
        do {
            journal = try Journal(stateDirectory: stateDirectory, role: .reader)
        } catch {
            logger.error("cannot open the journal to checkpoint it", [("error", "\(error)")])
            return
        }
        var lastHead: Int64 = -1
        var failures = 0
        while !control.isStopRequested {
            let started = Date()
            do {
                let head = try journal.head()
                if head != lastHead {
                    try journal.database.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    lastHead = head
                }
                failures = 0
            } catch {
                // Busy (another checkpoint, a recovery) or I/O: try again later; the log only grows meanwhile.
                failures += 1
                if failures == 10 { logger.warning("journal checkpoints keep failing", [("error", "\(error)")]) }
            }
            let rest = interval - Date().timeIntervalSince(started)
            if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            control.wait(seconds: 1)
        }
    }
}
