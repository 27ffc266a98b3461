import Dispatch
import Foundation
import HealthRouterCore

/// `healthrouter run`: the daemon. Serves the long-running sources and keeps every sink
/// caught up with the journal until SIGTERM or SIGINT.
enum RunCommand {
    static let help = """
        usage: healthrouter run [--config FILE] [--log-format text|json]

        Runs every long-running source of the config (http_push: phones push to it) and a
        worker per sink that delivers each accepted sample to the sinks its routes select,
        retrying a sink that is down with backoff (1 s doubling up to 1 min), forever.
        File sources are not read here: use `healthrouter import` for them. An import that
        began before the daemon delivers to its sinks itself: the workers of those sinks wait
        for it to end, saying so, then go on from where it left them.

        A push is answered 200 only once it is durable in the journal, so a crash or kill -9
        loses nothing that was acknowledged; on the next start every sink catches up.

        A soft open-file limit below what the config may need (max_connections + 8 a push
        listener, 24 an admin one, 16 a sink, 80 an ndjson sink, 64 besides) is raised to it;
        a hard limit below it is logged at the start with what to do (LimitNOFILE= in the
        systemd unit, ulimit -n, or a lower max_connections).

        SIGTERM or SIGINT (Ctrl-C) shut down gracefully: no new requests are accepted, those
        in flight finish, the sinks get a few seconds to deliver what was accepted, and the
        process exits 0 (a sink whose server accepted a request and does not answer is left
        behind 5 s later: its batch is delivered again at the next start, as with a kill -9).
        SIGHUP reloads the config: it is read and checked first, and one that
        does not check is logged (file:line and key) while the running one goes on untouched.
        One that checks replaces the running one the same way (nothing accepted is lost); if
        it cannot start (address in use), the previous one is started again. A listen address
        both configs have stays bound meanwhile: a phone that connects during the reload waits
        a moment and is answered by the new config, never refused. Under systemd (Type=notify,
        NOTIFY_SOCKET set) the daemon says READY=1 once it serves.

        exit codes: 0 stopped by a signal, 64 wrong options, 69 a source cannot listen (address
                    in use), another healthrouter run uses the state directory, or another
                    process holds a lock on it (a backup script's flock), 73 the state
                    directory or its journal is not writable (another user's files, a full
                    disk), 78 the config is wrong

        examples:
          ALICE_TOKEN=… healthrouter run --config healthrouter.yaml
          healthrouter run --config healthrouter.yaml --log-format json
        """

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "run")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        try arguments.refusePositional(command: "run")
        // First: Dispatch reads the stop and reload signals `main` blocked; one sent while the config
        // loads stays pending until the daemon runs.
        let signals = SignalWaiter(signals: [SIGTERM, SIGINT, SIGHUP])
        // A log read through a pipe whose reader went away (`run | tee`, a log shipper restarting)
        // fails a write instead of killing the daemon.
        signal(SIGPIPE, SIG_IGN)
        // The push listeners' sockets, kept bound across a reload (no connection is refused).
        let handover = ListenerHandover()
        var plan = try Plan(arguments: arguments, environment: environment, handover: handover)
        try plan.loaded.ensureStateDirectory()
        var lock = try DaemonLock(stateDirectory: plan.loaded.config.stateDirectory)
        try JournalOpenHint.checkWritable(plan.loaded.config.stateDirectory)
        // The lock of a reloaded config's other state directory, held beside the running one's until
        // that config has started (a config that cannot start falls back to the one that ran, whose
        // directory stays locked).
        var pendingLock: DaemonLock?
        var previous: Plan?
        // The push counters /metrics shows count this process's pushes, across reloads.
        let pushTotals = PushTotals()
        // Whether systemd (a Type=notify unit) was told the daemon runs.
        var toldReady = false
        while true {
            signals.logger = plan.loaded.logger
            OpenFileLimit.raise(toward: plan.openFilesNeeded, logger: plan.loaded.logger)
            // Set when a SIGHUP brought a config that checks: the running one stops for it.
            var next: Plan?
            do {
                try plan.daemon(pushTotals: pushTotals).run(sources: plan.services) {
                    // Called once the sources listen: a reloaded config has taken over (or the
                    // previous one again), and the sockets its listeners did not take are closed.
                    handover.endReload()
                    if previous != nil { plan.loaded.logger.info("config reloaded", [("config", plan.loaded.origin)]) }
                    if !toldReady {
                        toldReady = true
                        ServiceManagerNotice.send("READY=1", environment: environment)
                    }
                    if let taken = pendingLock {
                        lock = taken
                        pendingLock = nil
                    }
                    next = waitForStopOrReload(signals, arguments: arguments, runningFile: plan.loaded.file,
                                               logger: plan.loaded.logger, lock: lock,
                                               pendingLock: &pendingLock, handover: handover)
                    if next != nil { handover.beginReload() }
                    // A reload does not wait for behind sinks to catch up: the push port would be
                    // closed meanwhile, and phones back off for a minute or more.
                    return next == nil
                }
            } catch {
                // A reloaded config that cannot start (address in use): go back to the one that ran.
                if let working = previous {
                    plan.loaded.logger.error("the reloaded config cannot start; keeping the previous one", [("error", "\(error)")])
                    plan = working
                    previous = nil
                    pendingLock = nil
                    continue
                }
                switch error {
                case let error as SourceError:
                    throw CommandFailure(message: error.description, hint: nil, code: .unavailable)
                case let error as SQLiteError:
                    throw CommandFailure(message: "cannot open the journal in \(plan.loaded.config.stateDirectory): \(error)",
                                         hint: JournalOpenHint.hint(for: error, stateDirectory: plan.loaded.config.stateDirectory),
                                         code: .cannotCreate)
                default:
                    throw error
                }
            }
            guard let next else { break }
            previous = plan
            plan = next
        }
        plan.loaded.logger.info("stopped")
        return .success
    }

    /// Blocks until SIGTERM or SIGINT (returns nil) or a SIGHUP whose config loads and checks
    /// (returns it). A SIGHUP whose config does not is logged, with where and what is wrong,
    /// and waited past: the running daemon is never stopped for it.
    /// A config that moves the state directory from `lock`'s takes the new one's lock
    /// (`pendingLock`) before it is taken; the running one's stays held until it has started.
    /// `runningFile`: the file the running config came from (`--config`, or `./healthrouter.yaml`
    /// found at the start), which a reload must find again. `handover` goes to the next config's
    /// listeners.
    static func waitForStopOrReload(_ signals: SignalWaiter, arguments: CommandLineArguments, runningFile: String?,
                                    logger: Logger, lock: DaemonLock, pendingLock: inout DaemonLock?,
                                    handover: ListenerHandover) -> Plan? {
        while signals.wait() == SIGHUP {
            let path = arguments.values["--config"] ?? runningFile
            // Gone for a moment (an editor or a config tool replacing it): without `--config`, the
            // reload would find no ./healthrouter.yaml and take the embedded default, closing the push
            // listeners and starting a journal of its own.
            if let path, !FileManager.default.fileExists(atPath: path) {
                logger.error("config not reloaded, keeping the running one",
                             [("error", "\(path) does not exist (moved, or being replaced): send SIGHUP again once it is back")])
                continue
            }
            // A config from a pipe (`--config <(envsubst < healthrouter.yaml)`) was read once, at the
            // start: opened again it is empty, which would stop every source and sink.
            if let path, !Self.isRegularFile(path) {
                logger.error("config not reloaded, keeping the running one",
                             [("error", "\(path) is not a regular file (a pipe is read once, at the start): "
                                 + "restart healthrouter to change its config")])
                continue
            }
            do {
                let next = try Plan(arguments: arguments, environment: ProcessInfo.processInfo.environment, handover: handover)
                // An empty file (an editor or `cat >` halfway through writing it) is a valid config
                // of nothing: taken, it would stop every source and sink.
                if let path, next.loaded.config.sources.isEmpty, next.loaded.config.sinks.isEmpty {
                    logger.error("config not reloaded, keeping the running one",
                                 [("error", "\(path) holds no sources and no sinks (empty, or being written?): "
                                     + "send SIGHUP again once it is complete")])
                    continue
                }
                try next.loaded.ensureStateDirectory()
                if DaemonLock.key(next.loaded.config.stateDirectory) != lock.key {
                    pendingLock = try DaemonLock(stateDirectory: next.loaded.config.stateDirectory)
                }
                return next
            } catch {
                logger.error("config not reloaded, keeping the running one", [("error", "\(error)")])
            }
        }
        return nil
    }

    /// Whether `path` is a regular file (following symbolic links).
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// What one config runs: its sinks and long-running sources, checked without I/O.
    struct Plan {
        var loaded: LoadedConfig
        var sinks: [SinkSpec]
        var services: [(name: String, source: any ServiceSource)] = []
        /// The file descriptors the daemon may hold at once with this config (`OpenFileLimit`).
        var openFilesNeeded: Int { OpenFileLimit.need(services: services.map(\.source), sinks: sinks) }

        /// `handover`: where the listeners' sockets wait for the next config across a reload.
        init(arguments: CommandLineArguments, environment: [String: String], handover: ListenerHandover) throws {
            loaded = try LoadedConfig.load(arguments, environment: environment, idleSourceTypes: Set(PluginList.sources.map(\.type)))
            loaded.warnOfSecretsEveryUserMayRead()
            sinks = try loaded.sinkSpecs()
            var listeners: [(plugin: PluginConfig, source: any ServiceSource)] = []
            for plugin in loaded.config.sources {
                if let kind = PluginList.service(type: plugin.type) {
                    var context = loaded.context(for: plugin.name)
                    context.listenerHandover = handover
                    let source = try kind.make(plugin, context)
                    services.append((plugin.name, source))
                    listeners.append((plugin, source))
                } else if PluginList.source(type: plugin.type) != nil {
                    loaded.logger.info("file source not read by run (use healthrouter import)", [("source", plugin.name)])
                } else {
                    throw HealthRouterConfig.unknownType(of: plugin, known: PluginList.sourceTypes)
                }
            }
            try PluginList.refuseSharedAddresses(listeners)
        }

        func daemon(pushTotals: PushTotals) -> DaemonRun {
            var settings = SinkWorker.Settings()
            settings.maxAttempts = nil
            // A store that is down is tried again 1 s, 2 s, 4 s … later, and at least once a minute.
            settings.retryCap = 60
            // A receiver that asks for more time (429, 503 with Retry-After) gets it, up to 10 minutes.
            settings.longestRequestedWait = 600
            // A worker that keeps up writes what just came (often one push); one that fell
            // behind catches up in larger transactions, which rewrite each index page fewer times.
            settings.batchSize = 20_000
            // An import begun before the daemon delivers to its sinks itself: their workers wait for it.
            let stateDirectory = loaded.config.stateDirectory
            settings.deliveredElsewhere = { sink in
                ImportDeliveryLock.holder(of: stateDirectory, sink: sink).map { "a healthrouter import\($0 == "?" ? "" : " (pid \($0))")" }
            }
            return DaemonRun(stateDirectory: loaded.config.stateDirectory, sinks: sinks, settings: settings,
                             logger: loaded.logger, retainSeconds: loaded.config.journal.retain.seconds,
                             pushTotals: pushTotals)
        }
    }
}
