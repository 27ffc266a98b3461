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
        retrying a sink that is down with backoff (1 s doubling up to 1 h), forever.
        File sources are not read here: use `healthrouter import` for them.

        A push is answered 200 only once it is durable in the journal, so a crash or kill -9
        loses nothing that was acknowledged; on the next start every sink catches up.

        SIGTERM or SIGINT (Ctrl-C) shut down gracefully: no new requests are accepted, those
        in flight finish, the sinks get a few seconds to deliver what was accepted, and the
        process exits 0.

        exit codes: 0 stopped by a signal, 69 a source cannot listen (address in use),
                    73 the state directory is not writable, 78 the config is wrong

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
        let loaded = try LoadedConfig.load(arguments, environment: environment)
        let sinks = try loaded.sinkSpecs()
        var services: [(name: String, source: any ServiceSource)] = []
        for plugin in loaded.config.sources {
            if let kind = PluginList.service(type: plugin.type) {
                services.append((plugin.name, try kind.make(plugin, loaded.context(for: plugin.name))))
            } else if PluginList.source(type: plugin.type) != nil {
                loaded.logger.info("file source not read by run (use healthrouter import)", [("source", plugin.name)])
            } else {
                throw ConfigError(at: plugin.typeLocation, path: plugin.path + ".type",
                                  message: "unknown source type '\(plugin.type)'",
                                  suggestion: CommandLineArguments.closest(to: plugin.type, in: PluginList.sourceTypes))
            }
        }
        try loaded.ensureStateDirectory()

        var settings = SinkWorker.Settings()
        settings.maxAttempts = nil
        let daemon = DaemonRun(stateDirectory: loaded.config.stateDirectory, sinks: sinks, settings: settings,
                               logger: loaded.logger)
        let stop = SignalWaiter(signals: [SIGTERM, SIGINT], logger: loaded.logger)
        do {
            try daemon.run(sources: services) { stop.wait() }
        } catch let error as SourceError {
            throw CommandFailure(message: error.description, hint: nil, code: .unavailable)
        } catch let error as SQLiteError {
            throw CommandFailure(message: "cannot open the journal in \(loaded.config.stateDirectory): \(error)",
                                 hint: "check that the state directory is writable", code: .cannotCreate)
        }
        loaded.logger.info("stopped")
        return .success
    }
}

/// Blocks until one of `signals` arrives. The signals' default actions are turned off, and
/// Dispatch sources watch them, so the handler runs as ordinary code, not in a signal handler.
final class SignalWaiter {
    private let semaphore = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], logger: Logger) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [semaphore] in
                logger.info("signal received", [("signal", number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : String(number))])
                semaphore.signal()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func wait() {
        semaphore.wait()
        for source in sources { source.cancel() }
    }
}
