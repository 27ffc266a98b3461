import Foundation
import Synchronization

/// Drains the journal into one sink (DESIGN.md §2): reads the entries after the
/// sink's cursor that its routes select, writes them in batches, and moves the
/// cursor only after the sink acknowledged the batch. A rejected batch is split
/// until the bad entries are isolated as dead letters; a failing store is retried
/// with exponential backoff. The worker owns its sink instance and its own journal
/// connection; `run()` blocks its calling thread until the worker stops.
public final class SinkWorker: Sendable {
    public struct Settings: Sendable {
        /// Journal entries read per batch.
        public var batchSize = 5_000
        /// First retry delay after a store failure; doubled each time up to `retryCap`.
        public var retryInitial = 1.0
        public var retryCap = 3_600.0
        /// The longest wait a busy store may ask for (`SinkError.busy`); a longer one is cut to it.
        public var longestRequestedWait = 3_600.0
        /// Give up after this many consecutive failed attempts (nil: never, as a daemon does).
        public var maxAttempts: Int?
        /// Another process that delivers to the named sink of this journal now (a daemon's: an
        /// import begun before it), as the log names it; nil when none does. While one does, the worker
        /// opens no sink and looks again every second: both wrote every batch, and the sink's rows
        /// written counted it twice. Asked before each opening of the sink (nil: never asked).
        public var deliveredElsewhere: (@Sendable (_ sink: String) -> String?)?
        public init() {}

        /// A one-shot command's (import, backfill, migrate, dump): five tries, 0.5 s to 4 s
        /// apart, about 8 s for a store to come back; then it is reported, not waited for. A busy
        /// store's `Retry-After` is waited for up to a minute a try.
        public static var oneShot: Settings {
            var settings = Settings()
            settings.retryInitial = 0.5
            settings.retryCap = 4
            settings.longestRequestedWait = 60
            settings.maxAttempts = 5
            return settings
        }

        /// The wait after the `attempt`th consecutive failure (1-based): doubling from
        /// `retryInitial` up to `retryCap`.
        public func retryDelay(afterAttempt attempt: Int) -> Double {
            min(retryCap, retryInitial * pow(2, Double(attempt - 1)))
        }

        /// The wait after the `attempt`th consecutive failure `error`: `retryDelay(afterAttempt:)`,
        /// or longer when a busy store asked for longer (up to `longestRequestedWait`).
        public func retryDelay(afterAttempt attempt: Int, error: any Error) -> Double {
            let asked = (error as? SinkError)?.retryAfter ?? 0
            return max(retryDelay(afterAttempt: attempt), min(asked, longestRequestedWait))
        }
    }

    /// What a worker did, readable while it runs.
    public struct Progress: Sendable {
        public var cursor: Int64 = 0
        public var written = 0
        public var deadLetters = 0
        public var lastError: String?
        /// Set when the worker stopped without catching up.
        public var gaveUp: String?
        /// Whether it gave up because its sink is misconfigured (`SinkError.misconfigured`: the
        /// config needs a fix), not because its store stayed down.
        public var gaveUpMisconfigured = false
        /// Set by the caller (`ImportRun`) when its run read nothing this sink's routes select: the
        /// sink not catching up then leaves only entries of earlier runs undelivered.
        public var notNeeded = false
        public var finished = false
    }

    public let name: String
    private let stateDirectory: String
    private let makeSink: @Sendable () throws -> any Sink
    private let selects: @Sendable (_ type: String?, _ source: String) -> Bool
    private let settings: Settings
    private let logger: Logger
    /// Dead-letter warnings: at most one line every 10 s (the next one counts those left out).
    private let deadLetterWarnings: ThrottledWarnings
    private let progressState = Mutex(Progress())
    private let released = Mutex(false)

    /// - Parameters:
    ///   - makeSink: builds the sink; called on the worker's thread, again after a failure.
    ///   - selects: whether this sink's routes select an entry of `type` (nil: a tombstone) from `source`.
    public init(name: String, stateDirectory: String, settings: Settings = Settings(), logger: Logger,
                makeSink: @escaping @Sendable () throws -> any Sink,
                selects: @escaping @Sendable (_ type: String?, _ source: String) -> Bool) {
        self.name = name
        self.stateDirectory = stateDirectory
        self.makeSink = makeSink
        self.selects = selects
        self.settings = settings
        self.logger = logger.with("sink", name)
        self.deadLetterWarnings = ThrottledWarnings(logger: self.logger)
    }

    public var progress: Progress { progressState.withLock { $0 } }

    /// Whether this sink's routes select an entry of `type` (nil: a tombstone) from `source`.
    public func selects(type: String?, source: String) -> Bool { selects(type, source) }

    /// Tells the worker its caller does not wait for it (an import that read nothing its routes
    /// select): it goes on writing while its store takes the writes, and stops at its next failure,
    /// or in the backoff it is in, instead of retrying. Wakes it through `control`.
    public func release(waking control: WorkerControl) {
        released.withLock { $0 = true }
        control.wake()
    }

    private var isReleased: Bool { released.withLock { $0 } }

    /// The worker's own connection to the journal. What it writes (dead letters, the cursor's copy
    /// by which the journal is pruned, a pruned gap's note) must be durable before the sink's own
    /// cursor passes it: a power cut would otherwise lose a dead letter whose entry the sink then
    /// never has. (In the daemon most of it goes through the push writer, durable too.)
    static func openJournal(stateDirectory: String) throws -> Journal {
        let journal = try Journal(stateDirectory: stateDirectory, role: .reader)
        try journal.makeCommitsDurable()
        return journal
    }

    /// Runs until `control` says the input finished and the sink caught up with the
    /// journal, or until a stop is requested, or until `maxAttempts` failures in a row.
    /// With a `feed`, fresh entries are taken as they are instead of read back from the
    /// journal; a paced feed (`ImportRun`'s) carries every append of the run, so entries past
    /// its last are not looked for in the journal.
    ///
    /// - Parameters:
    ///   - writer: the journal's writer in a daemon: the worker records its cursor, errors and
    ///     dead letters through it instead of competing for the journal's write lock with the
    ///     requests it commits (nil: on the worker's own connection).
    public func run(control: WorkerControl, feed: LiveFeed? = nil, writer: PushIngest? = nil) {
        defer { progressState.withLock { $0.finished = true } }
        let journal: Journal
        do {
            journal = try Self.openJournal(stateDirectory: stateDirectory)
        } catch {
            giveUp("cannot open the journal: \(error)", misconfigured: false)
            return
        }
        var attempts = 0
        var retryWarnings = RetryWarningThrottle()
        // Damaged entries parked this run: a batch read again after a failed write parks them once.
        var parkedDamaged: Set<Int64> = []
        var sink: (any Sink)?
        var cursor: Int64 = 0
        // The journal's copy of the cursor (for `status`, pruning, and sinks that keep no
        // cursor of their own) is written at most every `cursorInterval` while the worker
        // is busy, and whenever it runs out of entries: a write per batch contends with
        // the appender for the journal's write lock. Deliveries are idempotent, so a copy
        // that lags only means a few entries delivered again after a crash.
        var unsaved: (sequence: Int64, written: Int)?
        var savedAt = Date.distantPast
        func saveCursor() throws {
            guard let pending = unsaved, !control.isAbandoned else { return }
            if let writer {
                writer.recordCursor(sink: name, to: pending.sequence, written: pending.written)
            } else {
                try journal.setCursor(sink: name, to: pending.sequence, written: pending.written)
            }
            unsaved = nil
            savedAt = Date()
        }
        // Whether the sink has written since it was last told it caught up (a fresh sink too).
        var wroteSinceCaughtUp = true
        var idleSince: Date?
        var routes = RouteMemo(selects)
        // While a rejected batch was being split, the store failed: until the cursor passes that
        // batch, batches are no larger than the part it failed on, so that the next tries do not
        // send the refused entry's larger parts again first (a link failing one request in three
        // failed the same part of every try, and the split never ended).
        var narrowed: (until: Int64, size: Int)?
        // The part of a split batch being written (the batch's end, the part's entries).
        var splitPart: (end: Int64, size: Int)?
        var batchesFromFeed = 0
        var batchesFromJournal = 0
        // A backlog being worked through, said in the daemon's log (an import shows its own
        // progress line): its start, its progress every 30 s, and its end.
        var catchUp: CatchUpReport?
        func report(idle: Bool = false) {
            guard var report = catchUp else { return }
            let written = progressState.withLock { $0.written }
            if let line = report.line(cursor: cursor, written: written, idle: idle) {
                logger.log(.info, line.message, line.fields, numbers: line.numbers)
            }
            catchUp = cursor >= report.target || idle ? nil : report
        }
        defer {
            logger.debug("worker stopped", numbers: [("batches_from_memory", LogNumber(batchesFromFeed)),
                                                     ("batches_read_back", LogNumber(batchesFromJournal))])
            try? saveCursor()
            feed?.leave(name)
            sink?.close()
        }

        // The process delivering to the sink in this worker's stead (`Settings.deliveredElsewhere`), when it said so.
        var waitedFor: String?
        // Whether the last failure came as the sink was made and prepared (its store not reached).
        var opening = false
        while !control.isStopRequested {
            do {
                if sink == nil, let other = settings.deliveredElsewhere?(name) {
                    if waitedFor == nil {
                        logger.info("\(other) delivers to this sink (it began before this daemon): waiting for it to end")
                    }
                    waitedFor = other
                    control.backOff(seconds: 1)
                    continue
                }
                if let other = waitedFor {
                    logger.info("\(other) ended: delivering from the cursor it left")
                    waitedFor = nil
                }
                if sink == nil {
                    opening = true
                    let fresh = try makeSink()
                    let own = try fresh.prepareOrClose()
                    opening = false
                    let recordedRow = try journal.cursor(sink: name)
                    let recorded = recordedRow ?? 0
                    cursor = own ?? recorded
                    let resumed = cursor
                    // Where the store's entries end when its cursor was set under another name
                    // (a renamed sink: this journal's numbers, as far as it can tell).
                    var renamedFrom: Int64?
                    let head = try journal.head()
                    if own == 0, recorded > 0 {
                        // The store holds no cursor although this journal delivered to it: it is
                        // new, or was emptied or replaced. Deliver what the journal still holds.
                        let oldest = try journal.oldestRetained() ?? head + 1
                        let pruned = oldest > 1
                            ? "; entries before \(oldest) were pruned (journal.retain): bring them back with "
                                + "`healthrouter backfill \(name) --from <export.zip or dump>`" : ""
                        logger.warning("the sink's store holds no cursor, while this journal had delivered \(recorded) "
                                           + "entries to it (a new, emptied or replaced store): delivering the journal again\(pruned)")
                    } else if let own, own > 0, recordedRow == nil {
                        // The store was written through another journal (the state directory was
                        // recreated, or the store came from elsewhere): its cursor numbers that
                        // journal's entries. Deliver everything (writes are idempotent), rather
                        // than skip entries of this journal under numbers the store has seen.
                        // (A run of this journal that was killed before its copy of the cursor was
                        // first saved left a row at 0: see below.)
                        logger.warning("the sink's cursor \(own) was not set by this journal (its store was written through another "
                                           + "state directory, or the sink was renamed in the config): delivering everything again, "
                                           + "which writes no second row")
                        cursor = 0
                        renamedFrom = own
                    } else if cursor > head {
                        // The sink has written past the end of this journal: the journal was
                        // recreated. Deliver everything again (writes are idempotent) rather
                        // than skip what the new journal holds.
                        logger.warning("the sink's cursor \(cursor) is past the journal's end \(head): the journal was recreated; delivering everything again")
                        cursor = 0
                    } else if let own, own > recorded, unsaved == nil {
                        // An earlier run's sink committed entries past the journal's copy of its
                        // cursor, and that run ended (killed) before the copy caught up: count
                        // what it wrote then, so that the totals `status` shows add up.
                        unsaved = (own, try delivered(after: recorded, through: own, journal: journal, routes: &routes))
                    }
                    // Entries pruned before this sink wrote them (it was out of the config while
                    // they were pruned, or is new): its store lacks them, however its lag reads. Not
                    // when everything is delivered again for another reason (a recreated journal:
                    // `cursor` was set back, the store holds its data). A store whose cursor was set
                    // under another name (a renamed sink, that was out of the config meanwhile)
                    // lacks those pruned after its own cursor. An empty journal has pruned every
                    // entry up to its head.
                    let firstRetained = try journal.oldestRetained() ?? head + 1
                    let gapFrom = cursor == resumed ? cursor + 1 : renamedFrom.map { $0 + 1 }
                    // Noted whole (`status` reads it by the routes of the day); said where the
                    // routes select what was pruned there (a sink of other types lacks nothing).
                    if let gapFrom, gapFrom < firstRetained,
                       try journal.notePrunedGap(sink: name, from: gapFrom, through: firstRetained - 1,
                                                 storeIsNew: own == 0 && recorded > 0) {
                        let lacking = try journal.prunedSelected([(gapFrom, firstRetained - 1)]) { type, source in
                            routes.selects(type: type, source: source)
                        }
                        if !(own == 0 && recorded > 0), !lacking.isEmpty {
                            logger.warning("entries \(Journal.describe(lacking)) were pruned (journal.retain) before this sink "
                                               + "wrote them (it was out of the config, is new, or was renamed): its store lacks those its "
                                               + "routes select; bring them back with `healthrouter backfill \(name) --from "
                                               + "<export.zip or dump>`")
                        }
                    }
                    if recordedRow == nil, (own ?? 0) == 0 {
                        // This journal meets the store empty: say so before the first write, so that
                        // a run killed before its copy of the cursor is saved (every 0.5 s) is not
                        // taken next time for a store another journal wrote, and written again whole.
                        if let writer {
                            writer.recordCursor(sink: name, to: 0, written: 0)
                        } else {
                            try journal.setCursor(sink: name, to: 0, written: 0)
                        }
                    }
                    // A worker's first opening of its sink (a start, a reload): an error an earlier
                    // worker recorded (an old url's, before a reload) is not this one's, and `status`
                    // would show it until the next write, which an idle sink may not make for long.
                    if attempts == 0, recordedRow != nil {
                        if let writer {
                            writer.recordLastError(sink: name, nil)
                        } else {
                            try journal.setLastError(sink: name, nil)
                        }
                    }
                    sink = fresh
                    let written = progressState.withLock {
                        $0.cursor = cursor
                        return $0.written
                    }
                    // In the daemon (`writer`), at the first opening or again after a failure:
                    // a catch-up under way goes on.
                    if writer != nil, catchUp == nil,
                       let report = CatchUpReport(cursor: cursor, head: head, written: written) {
                        catchUp = report
                        logger.log(.info, report.startLine.message, report.startLine.fields, numbers: report.startLine.numbers)
                    }
                }
                let inputFinished = control.isInputFinished
                var selected: [JournalEntry] = []
                let last: Int64
                if let until = narrowed?.until, cursor >= until { narrowed = nil }
                let batchSize = min(settings.batchSize, max(1, sink?.largestBatch ?? settings.batchSize), narrowed?.size ?? .max)
                if let live = feed?.entries(after: cursor, limit: batchSize, consumer: name), let end = live.last {
                    // Just appended: take the entries as they are, no read, no decode.
                    batchesFromFeed += 1
                    selected = routes.selectsAll(live) ? live : live.filter { routes.selects($0) }
                    last = end.sequence
                } else {
                    // Caught up with a paced feed, through which every append of this run goes:
                    // the next entries are published as soon as they are committed, so there is
                    // nothing to look for in the journal.
                    let caughtUp = feed?.lastPublished.map { cursor >= $0 } ?? false
                    let stored = caughtUp ? [] : try journal.entries(after: cursor, limit: batchSize)
                    guard let end = stored.last else {
                        // Caught up for good (the input ended), or for a while: a paced import
                        // catches up between every two batches the source hands over.
                        let now = Date()
                        let since = idleSince ?? now
                        idleSince = since
                        if wroteSinceCaughtUp, inputFinished || now.timeIntervalSince(since) >= Self.caughtUpDelay {
                            try sink!.caughtUp()
                            wroteSinceCaughtUp = false
                        }
                        try saveCursor()
                        report(idle: true)
                        // Opened, finished and its cursor kept: it works (a failure in either of
                        // those still counts towards giving up).
                        noteRecovery(after: &attempts, warnings: &retryWarnings)
                        if inputFinished { return }
                        control.wait(seconds: 0.05)
                        continue
                    }
                    batchesFromJournal += 1
                    selected.reserveCapacity(stored.count)
                    for entry in stored where routes.selects(type: entry.type, source: entry.source) {
                        do {
                            selected.append(try entry.decoded())
                        } catch let damaged as StoredEntry.Damaged {
                            // An entry the disk damaged blocks nothing behind it: parked as a dead letter.
                            if !parkedDamaged.contains(damaged.sequence) {
                                try park(damaged, journal: journal, writer: writer)
                                parkedDamaged.insert(damaged.sequence)
                            }
                        }
                    }
                    last = end.sequence
                }
                idleSince = nil
                // Each part the sink acknowledged moves the cursor, also while a rejected batch is
                // split: a failure of the store later in the split retries only what is left.
                splitPart = nil
                try deliver(selected, cursor: last, sink: sink!, journal: journal, writer: writer, attempting: { size in
                    if size < selected.count { splitPart = (last, size) }
                }) { through, written, dead in
                    wroteSinceCaughtUp = true
                    unsaved = (through, (unsaved?.written ?? 0) + written)
                    cursor = through
                    progressState.withLock {
                        $0.cursor = through
                        $0.written += written
                        $0.deadLetters += dead
                    }
                }
                if Date().timeIntervalSince(savedAt) >= Self.cursorInterval { try saveCursor() }
                report()
                noteRecovery(after: &attempts, warnings: &retryWarnings)
                progressState.withLock { $0.lastError = nil }
            } catch {
                if let part = splitPart { narrowed = (part.end, max(1, part.size)) }
                splitPart = nil
                attempts += 1
                let message = "\(error)"
                progressState.withLock { $0.lastError = message }
                try? saveCursor()
                if control.isAbandoned {
                    // Left behind by the daemon: the sink is another worker's now.
                } else if let writer {
                    writer.recordLastError(sink: name, message)
                } else {
                    try? journal.setLastError(sink: name, message)
                }
                // A call that failed after the stop (a worker the daemon left behind, its server
                // silent till curl's timeout): there is no retry, and another worker may run the sink now.
                if control.isStopRequested {
                    logger.warning("write failed after the stop: its batch is delivered again at the next start",
                                   [("error", message)])
                    return
                }
                let misconfigured = (error as? SinkError)?.isMisconfigured == true
                if let max = settings.maxAttempts, attempts >= max || misconfigured {
                    giveUp(message, misconfigured: misconfigured)
                    return
                }
                if isReleased {
                    stopReleased(message)
                    return
                }
                let delay = misconfigured ? settings.retryCap : settings.retryDelay(afterAttempt: attempts, error: error)
                if retryWarnings.shouldLog(attempt: attempts, message: message) {
                    // After the first few, one line every 10 minutes while the error stays the same.
                    logger.warning("\(opening ? "cannot open the sink" : "write failed"), retrying in \(Self.format(delay))",
                                   [("error", message)], numbers: [("failed_attempts", LogNumber(attempts))])
                }
                // A fresh sink after a failure: reconnects, and re-reads its own cursor.
                sink?.close()
                sink = nil
                control.backOff(seconds: delay, interrupted: { isReleased })
                if isReleased {
                    stopReleased(message)
                    return
                }
            }
        }
    }

    /// After failed attempts, says that the sink works again (the warnings said it did not), once.
    private func noteRecovery(after attempts: inout Int, warnings: inout RetryWarningThrottle) {
        guard attempts > 0 else { return }
        logger.info("the sink works again", numbers: [("failed_attempts", LogNumber(attempts))])
        attempts = 0
        warnings.reset()
    }

    /// How long a worker finds nothing to write before it tells its sink it caught up.
    static let caughtUpDelay: TimeInterval = 1

    /// The longest a busy worker leaves the journal's copy of its cursor behind.
    static let cursorInterval: TimeInterval = 0.5

    /// The entries in `(after, through]` routed to this sink and not parked as dead letters:
    /// what the sink wrote of them.
    private func delivered(after: Int64, through: Int64, journal: Journal, routes: inout RouteMemo) throws -> Int {
        var count = 0
        var position = after
        while position < through {
            let stored = try journal.entries(after: position, limit: settings.batchSize)
            guard let end = stored.last else { break }
            for entry in stored where entry.sequence <= through && routes.selects(type: entry.type, source: entry.source) {
                count += 1
            }
            position = end.sequence
        }
        let dead = try journal.deadLetters(sink: name).filter { $0.sequence > after && $0.sequence <= through }.count
        return max(0, count - dead)
    }

    /// Parks an entry that cannot be decoded as a dead letter of this sink, said in the log.
    private func park(_ damaged: StoredEntry.Damaged, journal: Journal, writer: PushIngest?) throws {
        let reason = "\(damaged) (the journal file was damaged on disk: restore it from a backup, or write the sample "
            + "from the export or dump that holds it with healthrouter backfill \(name) --from FILE)"
        if let writer {
            try writer.addDeadLetter(sink: name, sequence: damaged.sequence, reason: reason)
        } else {
            try journal.addDeadLetter(sink: name, sequence: damaged.sequence, reason: reason)
        }
        progressState.withLock { $0.deadLetters += 1 }
        deadLetterWarnings.warn(key: "damaged entry", "journal entry parked as a dead letter: it cannot be read, the entries "
                                    + "after it are delivered (healthrouter status lists them)",
                                [("reason", reason)], numbers: [("seq", LogNumber(damaged.sequence))])
    }

    /// Writes `entries` and sets the sink's cursor to `cursor`; isolates rejected entries, and parks
    /// those the store refused while taking the rest (`SinkError.partlyRefused`). Calls
    /// `acknowledged` with the cursor reached and the entries written and parked each time the
    /// sink acknowledged a part: the whole, or, while a rejected batch is split, each half in turn
    /// (every entry is in exactly one call).
    private func deliver(_ entries: [JournalEntry], cursor: Int64, sink: any Sink, journal: Journal, writer: PushIngest?,
                         attempting: (_ entries: Int) -> Void,
                         acknowledged: (_ through: Int64, _ written: Int, _ dead: Int) -> Void) throws {
        /// Parks `refused` (entries with the store's reasons) in one commit.
        func park(_ refused: [(entry: JournalEntry, reason: String)]) throws {
            let letters = refused.map { (sequence: $0.entry.sequence, reason: Self.deadLetterReason($0.reason, of: $0.entry)) }
            guard let first = letters.first else { return }
            if let writer {
                try writer.addDeadLetters(sink: name, letters)
            } else {
                try journal.addDeadLetters(sink: name, letters)
            }
            deadLetterWarnings.warn(key: "dead letter", "entry parked as a dead letter: the store refused it, the rest "
                                        + "of its batch is written (healthrouter status lists them)",
                                    [("reason", first.reason)],
                                    numbers: [("seq", LogNumber(first.sequence))] + (letters.count > 1 ? [("entries", LogNumber(letters.count))] : []))
        }
        do {
            attempting(entries.count)
            try sink.write(entries, cursor: cursor)
            acknowledged(cursor, entries.count, 0)
        } catch SinkError.partlyRefused(let refusals) {
            // The store took the rest: the refused entries it names are parked, the cursor moves on.
            var reasons: [Int64: String] = [:]
            for refusal in refusals where reasons[refusal.sequence] == nil { reasons[refusal.sequence] = refusal.reason }
            let refused = entries.compactMap { entry in reasons.removeValue(forKey: entry.sequence).map { (entry, $0) } }
            try park(refused)
            acknowledged(cursor, entries.count - refused.count, refused.count)
        } catch SinkError.rejected(let reason) {
            guard entries.count > 1 else {
                try park(entries.prefix(1).map { ($0, reason) })
                try sink.write([], cursor: cursor)
                acknowledged(cursor, 0, entries.isEmpty ? 0 : 1)
                return
            }
            let middle = entries.count / 2
            let first = Array(entries[..<middle])
            let second = Array(entries[middle...])
            try deliver(first, cursor: first.last!.sequence, sink: sink, journal: journal, writer: writer, attempting: attempting,
                        acknowledged: acknowledged)
            try deliver(second, cursor: cursor, sink: sink, journal: journal, writer: writer, attempting: attempting,
                        acknowledged: acknowledged)
        }
    }

    /// A store's reason for refusing `entry`, led by what the entry is (its type and id, or the ids
    /// a deletion names) unless the reason names the id already, so that `status` shows which
    /// sample a dead letter is.
    static func deadLetterReason(_ reason: String, of entry: JournalEntry) -> String {
        switch entry.item {
        case .sample(let sample):
            if reason.hasPrefix("\(sample.type) \(sample.id)") { return reason }
            // A store that named the sample ("sample D1: …") still gets it led by its type.
            for named in ["sample \(sample.id): ", "\(sample.id): "] where reason.hasPrefix(named) {
                return "\(sample.type) \(sample.id): " + reason.dropFirst(named.count)
            }
            return "\(sample.type) \(sample.id): \(reason)"
        case .tombstone(let tombstone):
            guard let first = tombstone.ids.first, !reason.contains(first) else { return reason }
            let more = tombstone.ids.count > 1 ? " and \(tombstone.ids.count - 1) more" : ""
            return "deletion of \(first)\(more): \(reason)"
        }
    }

    private func giveUp(_ reason: String, misconfigured: Bool) {
        progressState.withLock {
            $0.gaveUp = reason
            $0.gaveUpMisconfigured = misconfigured
        }
        logger.error("gave up: \(reason)")
    }

    /// Stops a released worker at a failure: not caught up, but nothing its caller appended waits
    /// for it, so a warning rather than an error.
    private func stopReleased(_ reason: String) {
        progressState.withLock { $0.gaveUp = reason }
        logger.warning("stopped retrying: nothing this run read routes here", [("error", reason)])
    }

    /// A retry delay for the log: `0.5s`, `4s`, `2m`.
    public static func format(_ seconds: Double) -> String {
        if seconds < 1 { return String(format: "%.1gs", seconds) }
        return seconds < 60 ? "\(Int(seconds))s" : "\(Int(seconds / 60))m"
    }
}

/// The worker's route answers, the last one remembered: entries come in runs of one type from
/// one source, and the answer for the same strings is the same (String equality is a pointer
/// compare for the shared strings a batch carries).
struct RouteMemo {
    private let selects: @Sendable (_ type: String?, _ source: String) -> Bool
    private var last: (type: String?, source: String, answer: Bool)?

    init(_ selects: @escaping @Sendable (_ type: String?, _ source: String) -> Bool) {
        self.selects = selects
    }

    mutating func selects(type: String?, source: String) -> Bool {
        if let last, last.type == type, last.source == source { return last.answer }
        let answer = selects(type, source)
        last = (type, source, answer)
        return answer
    }

    mutating func selects(_ entry: JournalEntry) -> Bool {
        selects(type: entry.item.sampleType, source: entry.source)
    }

    /// Whether every entry is selected: read in place, since a copy of an entry retains every
    /// string of its sample.
    mutating func selectsAll(_ entries: [JournalEntry]) -> Bool {
        entries.withUnsafeBufferPointer { entries in
            entries.indices.allSatisfy { selects(type: entries[$0].item.sampleType, source: entries[$0].source) }
        }
    }
}
