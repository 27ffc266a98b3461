import Foundation
import HealthRouterCore

/// `healthrouter check`: validates the config without I/O (with `--connect`, probes each sink).
enum CheckCommand {
    static let help = """
        usage: healthrouter check [--config FILE] [--connect]

        Validates the config file without reading or writing anything: YAML syntax,
        every key of every source and sink (a misspelt key is named with its path and
        the key you probably meant), ${ENV} variables, durations, and routes (every sink
        and source they name exists, every type selector is valid; one that names no known
        type is a warning, as it routes only a type of exactly that identifier). Every
        sink receives the deletions (tombstones), routed or not: a deleted sample leaves
        every store that may hold it. A config file every user may read that holds a token or
        password written in it (not a ${NAME}) is warned about, naming the keys.

          --connect   also open each sink and create its schema if missing, as a run would

        exit codes: 0 valid, 1 a sink could not be reached (--connect), 64 wrong options,
                    73 the state directory is not writable (--connect), or standard output cannot
                    be written (a full disk), 78 the config is wrong,
                    or a sink is misconfigured (--connect: a path under a file, no TimescaleDB, …)

        examples:
          healthrouter check --config healthrouter.yaml
          TIMESCALE_URL=postgres://… healthrouter check --connect
        """

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "check")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        try arguments.refusePositional(command: "check")
        let loaded = try LoadedConfig.load(arguments, environment: environment)
        let config = loaded.config
        loaded.warnOfSecretsEveryUserMayRead()
        let sinks = try loaded.sinkSpecs()
        var services: [(plugin: PluginConfig, source: any ServiceSource)] = []
        for plugin in config.sources {
            if let service = PluginList.service(type: plugin.type) {
                services.append((plugin, try service.make(plugin, loaded.context(for: plugin.name))))
                continue
            }
            guard let kind = PluginList.source(type: plugin.type) else {
                throw HealthRouterConfig.unknownType(of: plugin, known: PluginList.sourceTypes)
            }
            _ = try kind.make(plugin, loaded.context(for: plugin.name))
        }
        try PluginList.refuseSharedAddresses(services)
        var warnings = config.warnings.map(\.description)
        // `run` raises a soft limit below the need itself, up to the hard limit.
        let need = OpenFileLimit.need(services: services.map(\.source), sinks: sinks)
        if let limit = OpenFileLimit.current(), limit.hard < UInt64(need) {
            warnings.append("the sources and sinks may hold \(need) files at once (connections included), and the "
                            + "open-file limit here is \(limit.hard): \(OpenFileLimit.hint(need: need))")
        }
        for warning in warnings { print("warning: \(warning)") }
        let warned = warnings.count
        print("\(loaded.origin): valid — \(config.sources.count) source(s), \(sinks.count) sink(s), \(config.routes.count) route(s)"
              + (warned > 0 ? ", \(warned) warning(s) above" : ""))
        for sink in sinks {
            let routes = config.routes.filter { $0.to.contains(sink.name) }
            let described = routes.map { route in
                route.types.joined(separator: ", ") + (route.from.map { " from \($0.joined(separator: ", "))" } ?? "")
            }
            print("  sink \(sink.name) (\(sink.type)) receives: \(described.isEmpty ? "no samples (no route names it)" : described.joined(separator: "; "))"
                  + "; deletions")
        }
        guard arguments.flags.contains("--connect") else { return .success }
        try loaded.ensureStateDirectory(checkingOwnership: false)
        var failed = false, misconfigured = false
        for sink in sinks {
            do {
                let instance = try sink.makeSink()
                _ = try instance.prepareOrClose()
                instance.close()
                print("  \(sink.name): connected, schema ready")
            } catch {
                if (error as? SinkError)?.isMisconfigured == true { misconfigured = true } else { failed = true }
                print("  \(sink.name): FAILED: \(error)")
            }
        }
        return misconfigured ? .config : failed ? .incomplete : .success
    }
}
