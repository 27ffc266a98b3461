import Dispatch
import Foundation
import Synchronization

/// The journal's one writer while the daemon runs: the long-running sources append through
/// it from any thread, and the sink workers record their progress through it.
///
/// - Group commit: appends that arrive while a commit is running wait, and the next commit
///   takes all of them in one transaction (one fsync). `append` returns only once the commit
///   that holds its items is durable (`synchronous=FULL`: a 200 survives a power cut), with
///   what its own items did. When a grouped commit fails, each of its appends is tried again
///   alone, so one batch the journal refuses fails only its own request.
/// - No thread of its own: the first waiting caller commits for the group (leader/followers).
///   A caller's own items are always in the first commit it runs; after that it hands the
///   next group to one of the callers waiting, so no request carries more than one group.
/// - Sink progress (cursor, last error) is queued and written with the next commit, so a
///   worker never polls for the journal's write lock while requests keep it busy; a dead
///   letter waits for its commit (it must be durable before the sink's own cursor passes it).
///   A cursor the journal refused (a full disk) is kept and written again with that sink's next
///   progress, and every `cursorRetrySeconds` until it is written: a sink that has nothing more
///   to write once space is freed is not shown behind by `status` for good. A refused last error
///   (or its clearing) is written again the same way, as the sink's error then stands: `status`
///   does not show a failing sink without its error until the sink fails again (a minute later,
///   or ten for a receiver that asked for that long).
/// - Committed entries are published on `feed`, and the sink workers are woken.
/// - The journal's file is checked before each commit: deleted or replaced under the running
///   daemon, it would take every later write into a file nobody can open again, so appends
///   fail (the push is refused, not answered 200) until healthrouter is restarted.
public final class PushIngest: Sendable {
    /// The entries of the latest commits, for sink workers that keep up.
    public let feed: LiveFeed

    private let journal: Mutex<Journal>
    private let control: WorkerControl
    private let logger: Logger
    private let totals: PushTotals
    private let queue = Mutex(Queue())
    /// The journal file this ingest opened, and where.
    private let journalFile: (path: String, identity: FileIdentity?)
    /// Why the latest append failed, and when, while no append has succeeded since (nil: the
    /// journal takes writes): `/health` answers 503 meanwhile (`failingSince`).
    private let failure = Mutex<(reason: String, at: Date, fileReplaced: Bool)?>(nil)
    /// The cursors the journal refused (a full disk), by sink, with the rows written up to them:
    /// recorded with the sink's next progress (their rows added, so `status` counts them), or
    /// by the retry a refusal schedules (`retryScheduled`).
    private let unrecordedCursors = Mutex<[String: (sequence: Int64, written: Int)]>([:])
    /// The sinks whose last error (or its clearing) the journal refused: the retry writes the
    /// sink's error as it then stands (`errorsSinceCursor`), unless a cursor or an error of the
    /// sink queued since writes it first.
    private let unrecordedErrors = Mutex<Set<String>>([])
    private let retryScheduled = Mutex(false)
    /// Seconds between two tries of a refused cursor or last error.
    let cursorRetrySeconds: Double
    /// Refused progress is logged at most once every 10 minutes per sink while it lasts.
    private let progressWarnings: ThrottledWarnings

    /// Writes queued while a commit runs; `committing` is true while some caller leads.
    private struct Queue {
        var jobs: [Job] = []
        var committing = false
        /// The sequence of each sink's latest cursor its worker reported: a refused cursor is
        /// written again at this one, so a later cursor recorded meanwhile is not moved back.
        var latestCursors: [String: Int64] = [:]
        /// The error each sink's worker reported after its latest cursor, while it stands (a
        /// cursor, or nil, clears it): a refused cursor written again clears the sink's last error,
        /// so this one is written again after it.
        var errorsSinceCursor: [String: String] = [:]
    }

    /// What a sink worker records about its progress.
    enum Progress: CustomStringConvertible {
        case cursor(sink: String, sequence: Int64, written: Int)
        case lastError(sink: String, message: String?)
        case deadLetters(sink: String, [(sequence: Int64, reason: String)])

        /// As a log line shows it: `cursor 1000 (200 rows written)`.
        var description: String {
            switch self {
            case .cursor(_, let sequence, let written): "cursor \(sequence) (\(written) rows written)"
            case .lastError(_, let message): message.map { "last error: \($0)" } ?? "last error cleared"
            case .deadLetters(_, let letters): "\(letters.count) dead letter\(letters.count == 1 ? "" : "s")"
            }
        }
    }

    /// One queued write. A caller that waits sleeps on `wake`; the leader sets `outcome`
    /// before signalling it (the semaphore orders the write before the read), or signals it
    /// without an outcome to hand it the next group.
    private final class Job: @unchecked Sendable {
        enum Work {
            case append([HealthItem], source: String, forwardedBy: String?)
            case progress(Progress)
        }

        var work: Work
        let waits: Bool
        let wake = DispatchSemaphore(value: 0)
        var outcome: Result<AppendResult, any Error>?
        var entries: [JournalEntry] = []

        init(_ work: Work, waits: Bool) {
            self.work = work
            self.waits = waits
        }
    }

    /// - Parameters:
    ///   - feedEntries: how many of the latest committed entries `feed` keeps (20,000: about
    ///     0.4 s at 50,000 samples/s, and 8–10 MB held; a worker further behind reads the journal).
    ///   - autocheckpoint: false when a `JournalCheckpointer` keeps the log short instead of
    ///     the commits of this connection.
    public init(stateDirectory: String, control: WorkerControl, logger: Logger = Logger(minimumLevel: .warning),
                feedEntries: Int = 20_000, autocheckpoint: Bool = true, totals: PushTotals = PushTotals(),
                cursorRetrySeconds: Double = 5) throws {
        self.totals = totals
        self.cursorRetrySeconds = cursorRetrySeconds
        progressWarnings = ThrottledWarnings(logger: logger, interval: 600)
        let journal = try Journal(stateDirectory: stateDirectory)
        // Pushes come from several users' tokens: one may not change or delete another's samples.
        journal.enforcesOwners = true
        // A 200 promises the samples are kept: every commit reaches the disk before the
        // reply (WAL's NORMAL survives a killed process, not a power cut).
        try journal.makeCommitsDurable()
        if !autocheckpoint { try journal.database.execute("PRAGMA wal_autocheckpoint=0") }
        // After a checkpoint lets the log start over, its file is cut back to this size.
        try journal.database.execute("PRAGMA journal_size_limit=67108864")
        journalFile = (journal.path, FileIdentity(path: journal.path))
        self.journal = Mutex(journal)
        self.control = control
        self.logger = logger
        feed = LiveFeed(window: 256, maxEntries: feedEntries)
    }

    /// Appends `items` from the source named `source`; returns once they are durable, with
    /// what was new among them. `forwardedBy`: the user of the token another healthrouter
    /// forwards `items` with (`forwarded_user_ids`; `Journal.forwardingUser`).
    public func append(_ items: [HealthItem], source: String, forwardedBy: String? = nil) throws -> AppendResult {
        guard !items.isEmpty else { return AppendResult() }
        let result = try submitAndWait(Job(.append(items, source: source, forwardedBy: forwardedBy), waits: true))
        totals.add(result)
        return result
    }

    /// Records that `sink` durably wrote everything up to `sequence` (`written` more rows).
    /// Returns at once: the cursor is written with the next commit.
    public func recordCursor(sink: String, to sequence: Int64, written: Int) {
        submit(Job(.progress(.cursor(sink: sink, sequence: sequence, written: written)), waits: false))
    }

    /// Records the last error of `sink` (shown by `status`; nil clears it). Returns at once.
    public func recordLastError(sink: String, _ message: String?) {
        submit(Job(.progress(.lastError(sink: sink, message: message)), waits: false))
    }

    /// Parks entry `sequence` as a dead letter of `sink`; returns once that is durable.
    public func addDeadLetter(sink: String, sequence: Int64, reason: String) throws {
        try addDeadLetters(sink: sink, [(sequence, reason)])
    }

    /// Parks the entries `letters` names as dead letters of `sink`, in one commit; returns once
    /// that is durable.
    public func addDeadLetters(sink: String, _ letters: [(sequence: Int64, reason: String)]) throws {
        _ = try submitAndWait(Job(.progress(.deadLetters(sink: sink, letters)), waits: true))
    }

    /// The highest sequence written so far.
    public func head() throws -> Int64 {
        try journal.withLock { try $0.head() }
    }

    /// Why the journal refuses appends now, or nil: its file is not the one opened (looked at now),
    /// or an append failed within `failureMemory` seconds and none succeeded since (a full disk:
    /// after a minute without pushes it is taken to be fixed, so a client that waits for
    /// `/health` before pushing is not kept out for good).
    public var failingSince: String? {
        if let identity = journalFile.identity, !identity.isStill(at: journalFile.path) {
            return JournalFileReplaced(path: journalFile.path).description
        }
        // A file replaced and then put back takes writes again.
        return failure.withLock { failure in
            guard let failure, !failure.fileReplaced, Date().timeIntervalSince(failure.at) < Self.failureMemory else { return nil }
            return failure.reason
        }
    }

    /// How long a failed append keeps `failingSince` set without another failure.
    static let failureMemory: TimeInterval = 60

    /// Everything appended through the pushes of this process: this ingest, and those before it
    /// that shared its `PushTotals` (the daemon's, across config reloads).
    public var appendedSoFar: AppendResult { totals.value }

    // MARK: - Group commit

    private func submitAndWait(_ job: Job) throws -> AppendResult {
        if !enqueue(job) { job.wake.wait() }
        // Woken without an outcome: this caller leads the next group, which holds its job.
        if job.outcome == nil { lead(job) }
        return try job.outcome!.get()
    }

    private func submit(_ job: Job) {
        if enqueue(job) { lead(nil) }
    }

    /// Queues `job`; true when no commit is running and the caller must lead.
    private func enqueue(_ job: Job) -> Bool {
        queue.withLock { queue in
            if case .progress(.cursor(let sink, let sequence, let written)) = job.work {
                queue.latestCursors[sink] = sequence
                queue.errorsSinceCursor[sink] = nil
                // Written, it clears the sink's last error: a refused one is past.
                unrecordedErrors.withLock { _ = $0.remove(sink) }
                if let carried = unrecordedCursors.withLock({ $0.removeValue(forKey: sink) }) {
                    job.work = .progress(.cursor(sink: sink, sequence: sequence, written: written + carried.written))
                }
            } else if case .progress(.lastError(let sink, let message)) = job.work {
                if let carried = unrecordedCursors.withLock({ $0.removeValue(forKey: sink) }) {
                    // The refused cursor came before this error: written first, so the error stays.
                    Self.requeue(refused: carried, of: sink, in: &queue)
                }
                queue.errorsSinceCursor[sink] = message
                unrecordedErrors.withLock { _ = $0.remove(sink) }
            }
            if case .progress(.cursor(let sink, let sequence, let written)) = job.work {
                // A newer cursor replaces a queued one (their row counts add up); it goes last,
                // after any error queued since, so that a success clears that error.
                if let index = queue.jobs.firstIndex(where: { if case .progress(.cursor(sink, _, _)) = $0.work { true } else { false } }),
                   case .progress(.cursor(_, _, let earlier)) = queue.jobs[index].work {
                    queue.jobs.remove(at: index)
                    job.work = .progress(.cursor(sink: sink, sequence: sequence, written: written + earlier))
                }
            }
            queue.jobs.append(job)
            if queue.committing { return false }
            queue.committing = true
            return true
        }
    }

    private enum Step {
        case commit([Job])
        case handOver(Job)
        case stop
    }

    /// Commits queued groups until the queue is empty, or until `own` is done and another
    /// caller waits (that caller leads the next group).
    private func lead(_ own: Job?) {
        var ownDone = own == nil
        while true {
            let step = queue.withLock { queue -> Step in
                if queue.jobs.isEmpty {
                    queue.committing = false
                    return .stop
                }
                if ownDone, let waiting = queue.jobs.first(where: { $0.waits }) { return .handOver(waiting) }
                let taken = queue.jobs
                queue.jobs = []
                return .commit(taken)
            }
            switch step {
            case .stop:
                return
            case .handOver(let next):
                next.wake.signal()
                return
            case .commit(let jobs):
                commit(jobs)
                for job in jobs where job.waits && job !== own { job.wake.signal() }
                ownDone = true
            }
        }
    }

    /// Writes `jobs` in one transaction; on failure, each alone. Sets every outcome.
    private func commit(_ jobs: [Job]) {
        var appended: [JournalEntry] = []
        if let identity = journalFile.identity, !identity.isStill(at: journalFile.path) {
            let error = JournalFileReplaced(path: journalFile.path)
            for job in jobs { fail(job, error) }
            return
        }
        journal.withLock { journal in
            do {
                try journal.database.transaction {
                    for job in jobs { try perform(job, on: journal) }
                }
                for job in jobs { appended += job.entries }
            } catch {
                // Find the job the journal refuses: every other one commits on its own.
                for job in jobs {
                    do {
                        try journal.database.transaction { try perform(job, on: journal) }
                        appended += job.entries
                    } catch {
                        fail(job, error)
                    }
                }
            }
        }
        if jobs.contains(where: { if case .append = $0.work, case .success? = $0.outcome { true } else { false } }) {
            failure.withLock { $0 = nil }
        }
        guard !appended.isEmpty else { return }
        feed.publish(appended)
        control.notifyAppended()
    }

    /// Sets `job`'s outcome to `error`; a cursor's rows are carried to the sink's next one.
    private func fail(_ job: Job, _ error: any Error) {
        job.outcome = .failure(error)
        job.entries = []
        switch job.work {
        case .append:
            failure.withLock { $0 = ("\(error)", Date(), error is JournalFileReplaced) }
        case .progress(let progress):
            let sink: String
            switch progress {
            case .cursor(let name, let sequence, let written):
                sink = name
                // Later than any refused before it (whose rows its job took): its sequence stands.
                unrecordedCursors.withLock { $0[name] = (sequence, written + ($0[name]?.written ?? 0)) }
                scheduleCursorRetry()
            case .lastError(let name, _):
                sink = name
                unrecordedErrors.withLock { _ = $0.insert(name) }
                scheduleCursorRetry()
            case .deadLetters(let name, _):
                // The worker's call throws: it parks them again itself.
                sink = name
            }
            progressWarnings.warn(key: sink, "cannot record sink progress in the journal (a cursor or last error is tried again every "
                                      + "\(NumberText.decimal(cursorRetrySeconds, 0)) s)",
                                  [("sink", sink), ("progress", "\(progress)"), ("error", "\(error)")])
        }
    }

    /// Tries the refused cursors and last errors again in `cursorRetrySeconds`, unless a try is
    /// scheduled already.
    private func scheduleCursorRetry() {
        guard retryScheduled.withLock({ scheduled in
            defer { scheduled = true }
            return !scheduled
        }) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + cursorRetrySeconds) { [weak self] in
            guard let self else { return }
            retryScheduled.withLock { $0 = false }
            if enqueueRefusedCursors() { lead(nil) }
        }
    }

    /// Queues the refused cursors and last errors again; true when no commit is running and the
    /// caller must lead. A cursor of the same sink queued meanwhile is later than the refused one:
    /// it takes only its rows. A refused last error is queued as the sink's error now stands, unless
    /// a cursor or an error of the sink is queued (the last of them writes that already).
    private func enqueueRefusedCursors() -> Bool {
        queue.withLock { queue in
            let refused = unrecordedCursors.withLock { cursors in
                defer { cursors = [:] }
                return cursors
            }
            let errors = unrecordedErrors.withLock { sinks in
                defer { sinks = [] }
                return sinks
            }
            guard !refused.isEmpty || !errors.isEmpty else { return false }
            for (sink, carried) in refused { Self.requeue(refused: carried, of: sink, in: &queue) }
            for sink in errors.sorted() where !queue.jobs.contains(where: { job in
                switch job.work {
                case .progress(.cursor(sink, _, _)), .progress(.lastError(sink, _)): true
                default: false
                }
            }) {
                queue.jobs.append(Job(.progress(.lastError(sink: sink, message: queue.errorsSinceCursor[sink])), waits: false))
            }
            if queue.committing { return false }
            queue.committing = true
            return true
        }
    }

    /// Queues a refused cursor of `sink` again: its rows join a cursor of the sink still queued;
    /// else it is written at the latest cursor the sink's worker reported, which is its own
    /// sequence unless a later cursor came since (queued, then taken by a commit that runs or has
    /// run): moved back to the refused sequence, the cursor would show the sink behind again. An
    /// error the worker reported after that latest cursor (`errorsSinceCursor`) is written again
    /// after it: the cursor clears the last error, and `status` would show the failing sink without it.
    private static func requeue(refused: (sequence: Int64, written: Int), of sink: String, in queue: inout Queue) {
        if let index = queue.jobs.firstIndex(where: { if case .progress(.cursor(sink, _, _)) = $0.work { true } else { false } }),
           case .progress(.cursor(_, let sequence, let written)) = queue.jobs[index].work {
            queue.jobs[index].work = .progress(.cursor(sink: sink, sequence: sequence, written: written + refused.written))
        } else {
            let sequence = queue.latestCursors[sink] ?? refused.sequence
            queue.jobs.append(Job(.progress(.cursor(sink: sink, sequence: sequence, written: refused.written)), waits: false))
            if let message = queue.errorsSinceCursor[sink] {
                queue.jobs.append(Job(.progress(.lastError(sink: sink, message: message)), waits: false))
            }
        }
    }

    private func perform(_ job: Job, on journal: Journal) throws {
        switch job.work {
        case .append(let items, let source, let forwardedBy):
            journal.forwardingUser = forwardedBy
            defer { journal.forwardingUser = nil }
            let (result, entries) = try journal.appendCollecting(items, source: source)
            job.outcome = .success(result)
            job.entries = entries
        case .progress(.cursor(let sink, let sequence, let written)):
            try journal.setCursor(sink: sink, to: sequence, written: written)
            job.outcome = .success(AppendResult())
        case .progress(.lastError(let sink, let message)):
            try journal.setLastError(sink: sink, message)
            job.outcome = .success(AppendResult())
        case .progress(.deadLetters(let sink, let letters)):
            try journal.addDeadLetters(sink: sink, letters)
            job.outcome = .success(AppendResult())
        }
    }
}
