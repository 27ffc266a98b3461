import Foundation

/// The daemon (`healthrouter run`): sink workers that retry forever, plus the long-running
/// sources, until `stop()`.
///
/// Shutdown order (graceful): the sources stop accepting and finish their requests in
/// flight (every 200 already sent is durable in the journal); the workers get up to
/// `drainSeconds` to deliver what was accepted, then stop after their current batch; one whose
/// sink call has not returned `stopGraceSeconds` later is left behind.
public final class DaemonRun: Sendable {
    private let stateDirectory: String
    private let sinks: [SinkSpec]
    private let settings: SinkWorker.Settings
    private let logger: Logger
    private let drainSeconds: Double
    /// How long, after the drain, the workers get to end their current sink call.
    private let stopGraceSeconds: Double
    /// `journal.retain` in seconds; nil: entries are kept forever.
    private let retainSeconds: Double?
    /// The pushes' counters, carried from one run to the next (a config reload) by the caller.
    private let pushTotals: PushTotals
    public let control = WorkerControl()

    public init(stateDirectory: String, sinks: [SinkSpec], settings: SinkWorker.Settings, logger: Logger,
                drainSeconds: Double = 5, stopGraceSeconds: Double = 5, retainSeconds: Double? = nil,
                pushTotals: PushTotals = PushTotals()) {
        self.pushTotals = pushTotals
        self.stateDirectory = stateDirectory
        self.sinks = sinks
        self.settings = settings
        self.logger = logger
        self.drainSeconds = drainSeconds
        self.stopGraceSeconds = stopGraceSeconds
        self.retainSeconds = retainSeconds
    }

    /// Stops `sources` all at once, each on a thread of its own, and returns when all have stopped.
    /// Each may wait its 3 s for a push still arriving or a connection still silent: one after
    /// another, a stop or a reload took 3 s for each listener (6 s with an http_push and an admin
    /// source), past the stop's bound the README gives.
    static func stop(_ sources: [any ServiceSource]) {
        guard sources.count > 1 else {
            sources.first?.stop()
            return
        }
        let stopped = DispatchGroup()
        for source in sources {
            stopped.enter()
            let thread = Thread {
                source.stop()
                stopped.leave()
            }
            thread.name = "source-stop"
            thread.start()
        }
        stopped.wait()
    }

    /// Starts the workers and the sources, then blocks until `waitForStop` returns, then shuts
    /// down: with the drain when it returns true (a stop), without when false (a reload: the
    /// next run's workers resume from the journal, and the listeners are closed meanwhile).
    /// Throws when a source cannot start (after stopping what did start).
    public func run(sources: [(name: String, source: any ServiceSource)], waitForStop: () -> Bool) throws {
        let ingest = try PushIngest(stateDirectory: stateDirectory, control: control, logger: logger, autocheckpoint: false,
                                    totals: pushTotals)
        let checkpointer = JournalCheckpointer(stateDirectory: stateDirectory, logger: logger,
                                               pruning: retainSeconds.map { (sinks.map(\.name), $0) })
        let workers = sinks.map {
            SinkWorker(name: $0.name, stateDirectory: stateDirectory, settings: settings, logger: logger,
                       makeSink: $0.makeSink, selects: $0.selects)
        }
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            let thread = Thread { [control] in
                // Pushed entries reach the sink from memory; cursors go through the ingest's commits.
                worker.run(control: control, feed: ingest.feed, writer: ingest)
                group.leave()
            }
            thread.name = "sink-\(worker.name)"
            thread.start()
        }
        group.enter()
        let checkpoints = Thread { [control] in
            checkpointer.run(control: control)
            group.leave()
        }
        checkpoints.name = "journal-checkpoints"
        checkpoints.start()
        var started: [any ServiceSource] = []
        do {
            for entry in sources {
                do {
                    try entry.source.start(ingest: ingest)
                } catch var error as SourceError {
                    // `127.0.0.1:8787: cannot listen …` alone does not say which source's address it is.
                    error.input = "source '\(entry.name)' (\(error.input))"
                    throw error
                }
                started.append(entry.source)
            }
        } catch {
            Self.stop(started)
            control.requestStop()
            group.wait()
            throw error
        }
        logger.info("running", numbers: [("sources", LogNumber(sources.count)), ("sinks", LogNumber(workers.count))])
        let drains = waitForStop()
        // A reload keeps the listen addresses both configs have (ListenerHandover): saying
        // "no new requests" there read as if the daemon were going down.
        logger.info(drains ? "stopping: no new requests; finishing those in flight"
                           : "reloading: finishing the requests in flight under the previous config")
        Self.stop(started)
        let head = (try? ingest.head()) ?? 0
        let deadline = Date(timeIntervalSinceNow: drains ? drainSeconds : 0)
        while Date() < deadline && !workers.allSatisfy({ $0.progress.cursor >= head || $0.progress.finished }) {
            control.wait(seconds: 0.02)
        }
        control.requestStop()
        // A worker inside a sink call that does not return (a server that accepted the connection
        // and never answers: curl waits out its timeout) would hold a stop past a service
        // manager's patience, and a reload's closed listeners for as long. It is left behind:
        // its batch's cursor has not moved, so the batch is delivered again (idempotently).
        if group.wait(timeout: .now() + stopGraceSeconds) == .timedOut {
            control.abandon()
            for worker in workers where !worker.progress.finished {
                logger.warning("sink did not stop in time: its call in flight is left behind, and its batch is "
                                   + "delivered again at the next start", [("sink", worker.name)])
            }
        }
        for worker in workers {
            let progress = worker.progress
            logger.info("sink stopped", [("sink", worker.name)],
                        numbers: [("cursor", LogNumber(progress.cursor)), ("behind", LogNumber(max(0, head - progress.cursor)))])
        }
    }
}
