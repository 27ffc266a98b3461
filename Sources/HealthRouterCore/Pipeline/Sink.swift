/// A store that receives journal entries. A plugin implements only its format:
/// the core owns batching, retry, cursors, dead letters and logging.
///
/// Lifecycle contract:
/// - One instance belongs to one driver, a `SinkWorker` (the daemon, an import) or a
///   `DirectDelivery` (a backfill, a migration), and is only ever called from that driver's
///   thread, never concurrently; it need not be `Sendable`.
/// - `prepare()` is called once, before anything else. It may be called again on a
///   fresh instance after a failure, so it must be idempotent (create schema only
///   if missing).
/// - `write(_:cursor:)` is called with entries in increasing sequence order, at
///   least once each: after a crash or a retry the same entries may come again, and
///   writing them again must leave the store as one write would (idempotent). `cursor` is at or
///   past the last entry's sequence (the entries between that the sink's routes leave out are
///   passed over); `entries` may be empty, to move a sink's own cursor past a dead letter.
/// - Entries past the cursor the sink last stored, written with a `cursor` beyond it,
///   are new to the store: the journal passes each new or changed sample once, and
///   a sink's cursor is only ever compared with the journal that set it (the worker
///   delivers everything again to a store whose cursor another journal set). A sink
///   may skip its duplicate checks for them. Re-deliveries (a retry, a backfill, a
///   migration) come at or before the stored cursor, or with `cursor` unchanged.
/// - `caughtUp()` is called when the worker has delivered everything there is: once when it first
///   finds nothing to write, then again only after a write.
/// - `close()` is called once; nothing is called after it. It is called after a failed
///   `prepare()` too, so whatever `prepare()` acquired (a lock, a connection) is released.
public protocol Sink: AnyObject {
    /// Connects and creates the schema if missing. Throws `SinkError.misconfigured` for what a
    /// person must fix (a missing extension, a path under a file, a refused token), anything
    /// else for a store that may come back (retried). Returns the cursor the sink keeps
    /// in its own store (the sequence of the last entry it durably wrote; 0 when the store
    /// holds none: it is new, or was emptied or replaced), or nil when the sink keeps no
    /// cursor and the core's cursor applies. A sink that keeps its own
    /// cursor is believed over the core's, since it is written in the same
    /// transaction as the rows.
    func prepare() throws -> Int64?

    /// After `prepare()`: whether it created the store (the file, the folder's index, the
    /// tables were not there). A resumable run (`backfill`, `migrate`) whose target was created
    /// anew since it was interrupted (deleted, a database dropped) starts over instead of
    /// resuming past what the old store held. Default: false (a store it cannot tell, such as
    /// a remote server).
    var createdItsStore: Bool { get }

    /// Writes `entries` durably and idempotently. Samples are upserted by id,
    /// tombstones delete the ids they name and are recorded. When the sink keeps its
    /// own cursor it stores `cursor` in the same transaction as the rows.
    ///
    /// Throw `SinkError.rejected` when the data itself is at fault (a value the store
    /// refuses): the worker splits the batch to find the bad entries and parks them
    /// as dead letters. Throw anything else for a failure of the store (full disk,
    /// connection lost): the worker retries the whole batch with backoff
    /// (`SinkError.busy`: not before the time the store asked for). Throw
    /// `SinkError.partlyRefused` when the store took the rest of the batch and said which
    /// entries it refused (a receiver that answered 200 and skipped some elements): those
    /// become dead letters with the store's reasons, the rest counts as written.
    func write(_ entries: [JournalEntry], cursor: Int64) throws

    /// Called when the worker has written every entry there is for now (more may come later),
    /// between writes, on the worker's thread. A sink that put work off while it caught up (an
    /// index built once at the end of a load) finishes it here, so the store is complete while
    /// the worker waits. A throw counts as a failed write: retried with backoff.
    func caughtUp() throws

    /// Called, between two tries, by a caller that keeps this instance across a failed write (a
    /// backfill or migration: `DirectDelivery`; the worker makes a fresh instance instead) or a
    /// failed read (`migrate --from`, `ReadableSink`): re-establish what the failure may have
    /// broken, such as a lost connection, as `prepare()` would (`prepareForReading()` for a sink
    /// opened by it). Default: nothing (a local file needs nothing).
    func reconnect() throws

    /// The most entries one `write` should be given (nil: as many as the caller batches). A sink
    /// whose write is several requests that each succeed or fail on their own (an http sink's
    /// bodies) gives the size of one, so that every request the store acknowledged moves the
    /// cursor: on a link that drops one request in forty, a write of four would otherwise be
    /// retried, the acknowledged ones with it, until all four pass at once. Read after `prepare()`.
    var largestBatch: Int? { get }

    /// Releases connections and files.
    func close()
}

extension Sink {
    /// Cannot tell: the default.
    public var createdItsStore: Bool { false }

    /// Nothing put off: the default.
    public func caughtUp() throws {}

    /// Nothing to re-establish: the default.
    public func reconnect() throws {}

    /// Any batch: the default.
    public var largestBatch: Int? { nil }
}

extension Sink {
    /// `prepare()`, closing the sink when it throws (the contract's "close after a failed prepare").
    public func prepareOrClose() throws -> Int64? {
        do {
            return try prepare()
        } catch {
            close()
            throw error
        }
    }
}
