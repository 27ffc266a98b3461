import Foundation

/// A one-shot import (`healthrouter import`): runs the sink workers while finite
/// sources feed the journal, then lets every worker catch up and reports.
public final class ImportRun {
    /// What one source read, and why it stopped early when it did.
    public struct SourceResult: Sendable {
        public var name: String
        public var counters: ImportCounters
        /// The error to show when the source stopped before its end.
        public var failure: String?
        /// Whether that error is an input that could not be read at all (`SourceError.cannotRead`).
        public var cannotRead: Bool

        public init(name: String, counters: ImportCounters, failure: String? = nil, cannotRead: Bool = false) {
            self.name = name
            self.counters = counters
            self.failure = failure
            self.cannotRead = cannotRead
        }
    }

    public struct Summary: Sendable {
        /// One result per source, in the order they were given (several may share a name: files
        /// given on one command line are all the source `import`).
        public var sources: [SourceResult] = []
        public var sinks: [String: SinkWorker.Progress] = [:]
        /// For a sink that did not catch up though nothing this run read routes to it (`Progress.notNeeded`):
        /// the entries of earlier runs its routes select that wait for it in the journal.
        public var waiting: [String: Int64] = [:]
        /// Whether a source stopped because the journal refused its entries (disk full, damaged),
        /// or the state directory a temporary file of the source (`SourceError.stateNotWritable`).
        public var journalRefused = false
        /// Journal entries pruned at the end (every sink passed them and `retain` ran out).
        public var pruned = 0
        /// How long that took (a delete of millions of entries takes seconds).
        public var pruneSeconds: Double = 0
        public var seconds: Double = 0

        /// True when every source was read to its end and every sink caught up, but for sinks whose
        /// store is down and that nothing this run read routes to (`Progress.notNeeded`).
        public var succeeded: Bool {
            sources.allSatisfy { $0.failure == nil }
                && sinks.values.allSatisfy { $0.gaveUp == nil || ($0.notNeeded && !$0.gaveUpMisconfigured) }
        }

        /// Whether a sink did not catch up because it is misconfigured (its config needs a fix).
        public var sinkMisconfigured: Bool { sinks.values.contains { $0.gaveUpMisconfigured } }

        /// The first source that stopped early, when one did.
        public var firstFailed: SourceResult? { sources.first { $0.failure != nil } }
    }

    /// Items appended to the journal per transaction. Larger transactions write each page
    /// of the id index fewer times; a crash loses nothing, since the file is read again.
    static let transactionSize = 5_000

    private let stateDirectory: String
    private let sinks: [SinkSpec]
    private let settings: SinkWorker.Settings
    private let retainSeconds: Double?
    private let logger: Logger

    /// - Parameter retainSeconds: how long entries stay in the journal, counted from when it took
    ///   them, once every sink passed them (`journal.retain`; nil: forever, or pruned by a
    ///   daemon beside the import). Pruned at the end of the run.
    public init(stateDirectory: String, sinks: [SinkSpec], settings: SinkWorker.Settings,
                retainSeconds: Double?, logger: Logger) {
        self.stateDirectory = stateDirectory
        self.sinks = sinks
        self.settings = settings
        self.retainSeconds = retainSeconds
        self.logger = logger
    }

    /// Reads every source in turn into the journal while the workers drain it.
    /// `onStart` receives the outputs and workers so a caller can show progress; `onPruning` hears
    /// true when the journal's pruning at the end begins (after every worker stopped), false when
    /// it ended (not called without `retainSeconds`).
    public func run(sources: [(name: String, source: any FiniteSource)],
                    onStart: ([JournalSourceOutput], [SinkWorker]) -> Void = { _, _ in },
                    onPruning: (_ started: Bool) -> Void = { _ in }) throws -> Summary {
        let started = Date()
        let journal = try Journal(stateDirectory: stateDirectory)
        // Each commit reaches the disk before its entries go to the sinks (one fsync a batch of
        // `transactionSize`): a sink's cursor, durable in its own store, must never pass the
        // journal's durable end. After a power cut the journal would hand the lost sequence
        // numbers to new entries, which a sink past them would never get.
        try journal.makeCommitsDurable()
        let control = WorkerControl()
        // A batch from the source holds at least `transactionSize` items (a few more when the
        // source's last chunk brought them): workers take one whole, or two that fit.
        var settings = settings
        settings.batchSize = max(settings.batchSize, 2 * Self.transactionSize)
        let workers = sinks.map {
            SinkWorker(name: $0.name, stateDirectory: stateDirectory, settings: settings, logger: logger,
                       makeSink: $0.makeSink, selects: $0.selects)
        }
        // Paced: the sources wait for the slowest sink that is making progress, so every
        // sink takes each batch from memory instead of decoding it back from the journal.
        let feed = LiveFeed(pacing: true)
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            let thread = Thread {
                worker.run(control: control, feed: feed)
                group.leave()
            }
            thread.name = "sink-\(worker.name)"
            thread.start()
        }
        let outputs = sources.map {
            JournalSourceOutput(journal: journal, sourceName: $0.name, control: control, bufferLimit: Self.transactionSize,
                                feed: feed)
        }
        onStart(outputs, workers)

        var summary = Summary()
        for (index, entry) in sources.enumerated() {
            var failure: String?, cannotRead = false
            do {
                // Two samples of one fingerprint in one export are two samples (Journal.twinsAfter);
                // in the next file (a later export), a change; in a replay, always a change. The
                // previous file's output finished above, so its entries are in. What an earlier,
                // killed import of the file journaled is met again as it was (Journal.metBefore).
                let head = try journal.head()
                journal.inputStart = head
                journal.twinsAfter = entry.source.keepsTwinsApart ? head : nil
                journal.keepsFirstOffsets = entry.source.datesCarryTheExportersOffset
                journal.refusesEarlierVersions = entry.source.listsVersionsInOrder
                journal.beginInput()
                defer { _ = try? outputs[index].finish() }
                try entry.source.read(into: outputs[index])
                try outputs[index].finish()
                // Read to its end: the date it told is its user's latest from now on.
                try journal.finishInput()
            } catch {
                failure = "\(error)"
                cannotRead = (error as? SourceError)?.cannotRead ?? false
                if outputs[index].journalRefused || (error as? SourceError)?.stateNotWritable == true { summary.journalRefused = true }
            }
            summary.sources.append(SourceResult(name: entry.name, counters: outputs[index].snapshot, failure: failure,
                                                cannotRead: cannotRead))
        }
        // A sink whose routes select nothing this run read (new or not) has nothing of it to write:
        // the import does not wait for its store to come back (it keeps writing while the store
        // takes writes). One that selects what was read waits, also when all of it was journaled
        // before: running the import again is how a sink that was down gets what it missed.
        let sources = summary.sources
        let needed = workers.map { worker in
            sources.contains { source in
                source.counters.appended.itemTypes.contains { worker.selects(type: $0, source: source.name) }
            }
        }
        control.finishInput()
        for (worker, isNeeded) in zip(workers, needed) where !isNeeded { worker.release(waking: control) }
        group.wait()
        for (worker, isNeeded) in zip(workers, needed) {
            var progress = worker.progress
            progress.notNeeded = !isNeeded
            summary.sinks[worker.name] = progress
            if !isNeeded, progress.gaveUp != nil {
                summary.waiting[worker.name] = try? journal.entryCount(after: journal.cursor(sink: worker.name) ?? 0,
                                                                      selectedBy: worker.selects(type:source:))
            }
        }
        if retainSeconds != nil {
            onPruning(true)
            let pruneStarted = Date()
            do {
                summary.pruned = try journal.prune(sinks: sinks.map(\.name), retainSeconds: retainSeconds)
            } catch {
                logger.warning("could not prune the journal: \(error)")
            }
            summary.pruneSeconds = Date().timeIntervalSince(pruneStarted)
            onPruning(false)
        }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }
}
