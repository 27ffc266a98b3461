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
/// PASSIVE checkpoints copy the log back but cannot start it over while sink workers keep
/// reading from it: under a steady stream of pushes the log grew past 290 MB (a soak test). Once
/// it is larger than `logLimit` bytes, a TRUNCATE checkpoint, at most every 5 seconds, waits up
/// to 100 ms (twice: for readers' marks, then for readers to leave) for the readers of the moment,
/// copies what is left back, syncs and empties the log; when they do not finish in time it gives
/// up until the next try. Writers wait while it holds the write lock: measured under pushes as
/// fast as the machine takes them, 0.4 s once every 5 s while the log stays past its limit (0.75 s
/// once after a reader held it for long), nothing while it stays under.
///
/// It also prunes the journal as `journal.retain` says (`pruning`): a few seconds after the
/// start, then every `pruneInterval` seconds, at most `pruneBatch` entries at a time (again
/// soon while there is more), so the pushes waiting for the journal's write lock wait little.
/// An import prunes at its end; the daemon has no end.
///
/// `run(control:)` blocks its thread until `control` asks to stop.
public final class JournalCheckpointer: Sendable {
    private let stateDirectory: String
    private let interval: Double
    private let logger: Logger
    /// The sinks whose cursors bound pruning and the retention in seconds; nil: no pruning.
    private let pruning: (sinks: [String], retainSeconds: Double)?
    private let pruneInterval: Double
    private let pruneBatch: Int64
    private let logLimit: Int64

    public init(stateDirectory: String, interval: Double = 0.25, logger: Logger,
                pruning: (sinks: [String], retainSeconds: Double)? = nil, pruneInterval: Double = 600,
                pruneBatch: Int64 = 50_000, logLimit: Int64 = 64 << 20) {
        self.stateDirectory = stateDirectory
        self.logLimit = logLimit
        self.interval = interval
        self.logger = logger
        self.pruning = pruning
        self.pruneInterval = pruneInterval
        self.pruneBatch = pruneBatch
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
        var nextTruncate = Date()
        // The first prune a few seconds in: a restart after a long stop finds old entries at once.
        var nextPrune = Date(timeIntervalSinceNow: min(5, pruneInterval))
        while !control.isStopRequested {
            let started = Date()
            if let pruning, started >= nextPrune {
                do {
                    let pruned = try journal.prune(sinks: pruning.sinks, retainSeconds: pruning.retainSeconds,
                                                   maximum: pruneBatch)
                    if pruned > 0 { logger.info("pruned the journal", numbers: [("entries", LogNumber(pruned))]) }
                    nextPrune = Date(timeIntervalSinceNow: Int64(pruned) >= pruneBatch ? 1 : pruneInterval)
                } catch {
                    logger.warning("could not prune the journal", [("error", "\(error)")])
                    nextPrune = Date(timeIntervalSinceNow: pruneInterval)
                }
            }
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
            if Date() >= nextTruncate, journal.database.writeAheadLogBytes > logLimit {
                nextTruncate = Date(timeIntervalSinceNow: 5)
                // Busy (readers that did not finish in time): the next try, or the next PASSIVE one, does it.
                try? journal.database.withShortLockWaits(milliseconds: 100) {
                    try journal.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
            let rest = interval - Date().timeIntervalSince(started)
            if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            control.wait(seconds: 1)
        }
    }
}
