import Foundation
import AppleHealthExportSource
import HealthAutoExportFileSource
import HealthRouterCore
import ReplaySource

/// `healthrouter import PATH…`: reads files into the journal and delivers them to every sink.
enum ImportCommand {
    static let help = """
        usage: healthrouter import [PATH…] [--time-zone ZONE] [--config FILE] [-q]

        Reads each PATH into the journal, then delivers every new sample to the sinks
        its routes select, and waits until every sink has caught up. A sink whose routes
        select nothing this import read is not waited for when its store fails: the
        summary says so, and how many entries of earlier runs wait for it.

          PATH   an Apple Health export.zip or export.xml (found by content, any size, any
                 language's file name), or NDJSON: a file `healthrouter dump` wrote, or a folder
                 an ndjson sink or Pulso's reference server wrote (the `replay` source), or
                 Health Auto Export's JSON export: a .json file or a folder of them, each read
                 as http_push's /hae reads a push (the `health_auto_export` source; at most
                 64 MiB a file); without PATH, every file source in the config is read

        Without a config file, the embedded default is used: the journal and a SQLite store
        at ./healthrouter-data/health.sqlite, plus NDJSON files under ./healthrouter-data/ndjson/.
        Running the same import again writes nothing new and says so; an import stopped
        half-way (Ctrl-C, kill -9) resumes where it left off when run again.

        A file given as PATH takes the name and options of the config's only source of
        that type (so its routes' `from:` apply), else the source name `import`.

          --time-zone ZONE   the zone the phone keeps (Europe/Berlin): an export's samples that
                             recorded none get its offsets at their instants, so local days are
                             right across daylight saving (an export stamps every date with the
                             offset of the day it was written); the source option `time_zone`.
                             Give it from the first import on: samples journaled before keep the
                             offsets they came with

        exit codes: 0 done (samples a sink refused are dead letters, listed by `status`; they do
                    not change the exit code), 1 a sink's store could not be reached and the sink
                    has not caught up though its routes select what this import read (five tries,
                    0.5 s to 4 s apart, each waiting up to the connection's timeout; the entries
                    stay in the journal: the next run delivers them), 64 wrong options or nothing
                    to import, 65 the file or folder is not usable input (also: every record in it
                    was skipped), 66 the file is missing or cannot be read (on the command line or
                    in the config), 73 the state directory is not writable or is full, 78 the
                    config is wrong, or a sink is misconfigured (`misconfigured: …`, given up at
                    once: fix its config, then import again), also when another sink is only down

        examples:
          healthrouter import ~/Downloads/export.zip
          healthrouter import ~/Downloads/export.zip --time-zone Europe/Berlin
          healthrouter import export.xml --config healthrouter.yaml
          healthrouter import ~/pulso-server/data
          healthrouter import HealthAutoExport-2024-01-01-2024-12-31.json
        """

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "import")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        let loaded = try LoadedConfig.load(arguments, environment: environment, idleSourceTypes: Set(PluginList.services.map(\.type)))
        let plan = try sources(arguments.positional, loaded: loaded, timeZone: arguments.values["--time-zone"])
        var sinks = try loaded.sinkSpecs()
        try loaded.ensureStateDirectory()
        // Held until the import returns.
        let importLock = ImportLock(stateDirectory: loaded.config.stateDirectory) { holder in
            NoticeOutput(format: loaded.logger.format).write("healthrouter: another import (pid \(holder)) is running on the "
                                                             + "state directory \(loaded.config.stateDirectory): waiting for it to end")
        }
        defer { withExtendedLifetime(importLock) {} }
        // A daemon running on this state directory delivers what the import journals (its workers
        // look in the journal): the import writes no sink itself, as two writers of one store would
        // race (an ndjson folder is one writer's). Taken first, the delivery lock keeps a daemon that
        // starts after the look from delivering beside the import (the workers of the import's sinks
        // wait for it).
        // An import without sinks delivers to none: it keeps no daemon's worker waiting.
        var deliveryLock = sinks.isEmpty ? nil : ImportDeliveryLock(stateDirectory: loaded.config.stateDirectory, sinks: sinks.map(\.name))
        let holder = DaemonLock.lockHolder(of: loaded.config.stateDirectory)
        let daemon = holder?.pid
        if daemon != nil {
            sinks = []
            deliveryLock = nil
        }
        defer { withExtendedLifetime(deliveryLock) {} }

        // An import is finite: a store that stays down is reported, not waited for.
        var settings = SinkWorker.Settings.oneShot
        settings.batchSize = 5_000
        // Beside a daemon the import prunes nothing: the daemon does, by its sinks' cursors (with
        // no sink of its own, the import would prune what the daemon's sinks have yet to write).
        let run = ImportRun(stateDirectory: loaded.config.stateDirectory, sinks: sinks, settings: settings,
                            retainSeconds: daemon == nil ? loaded.config.journal.retain.seconds : nil, logger: loaded.logger)
        var progress: ProgressLine?
        let label = plan.count == 1 ? "importing \((plan[0].input as NSString).lastPathComponent)" : "importing"
        let summary: ImportRun.Summary
        do {
            summary = try run.run(sources: plan.map { ($0.name, $0.source) }) { outputs, workers in
                let line = ProgressLine(label: label, outputs: outputs, workers: workers,
                                        enabled: ProgressLine.isDrawn(quiet: arguments.flags.contains("--quiet"),
                                                                      format: loaded.logger.format))
                line.start()
                progress = line
            } onPruning: { started in
                progress?.notePruning(started)
            }
        } catch {
            progress?.stop()
            throw CommandFailure(message: "cannot open the journal in \(loaded.config.stateDirectory): \(error)",
                                 hint: JournalOpenHint.hint(for: error, stateDirectory: loaded.config.stateDirectory),
                                 code: .cannotCreate)
        }
        progress?.stop()
        var report = ImportReport(summary: summary,
                                  inputs: plan.map(\.input),
                                  readsFolder: plan.contains { planned in
                                      // A config's `~/folder` is HOME's, as the source read it (not the password database's).
                                      var isDirectory: ObjCBool = false
                                      let path = ConfigPath.expandingTilde(planned.input, homeDirectory: loaded.homeDirectory)
                                      return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                                  },
                                  sinkTypes: Dictionary(sinks.map { ($0.name, $0.type) }) { a, _ in a },
                                  sinkOrder: sinks.map(\.name),
                                  deliveringDaemon: daemon, daemonConfirmed: holder?.confirmed ?? true, timeZone: arguments.values["--time-zone"],
                                  retain: loaded.config.journal.retain.description)
        // What a sink lacks because it was pruned before the sink wrote it (its worker noted it in
        // a warning): the summary says so beside "caught up", as `status` would. A worker that never
        // opened its sink (its store down throughout) read no cursor (0): the journal's copy of it
        // says how far the store is, as in `status`, or every entry pruned would be said lacking.
        if let journal = try? Journal(stateDirectory: loaded.config.stateDirectory, role: .reader) {
            for (name, progress) in summary.sinks {
                let cursor = progress.cursor > 0 ? progress.cursor : (((try? journal.cursor(sink: name)) ?? nil) ?? 0)
                if let gaps = try? journal.lackingRanges(sink: name, cursor: cursor, routes: loaded.routes), !gaps.isEmpty {
                    report.lacking[name] = gaps
                }
            }
        }
        if report.readAnything || summary.firstFailed == nil { print(report.render()) }
        let errors = ErrorOutput(format: loaded.logger.format)
        var lines = report.errors()
        if summary.journalRefused {
            if lines.isEmpty { lines.append("the journal in \(loaded.config.stateDirectory) refused what was read") }
            // A temporary file's error has a hint of its own; this one says what to do next.
            if lines[lines.count - 1].contains("\n  hint: ") {
                lines[lines.count - 1] += " Then run the import again: it resumes where it stopped."
            } else {
                lines[lines.count - 1] += "\n  hint: free space in \(loaded.config.stateDirectory) (or make it writable), then run the "
                    + "import again: it resumes where it stopped"
            }
        }
        let code = Self.exitCode(summary)
        // The last error line is the one that ends the command: with `--log-format json` it carries the exit code.
        for (index, line) in lines.enumerated() {
            errors.write(line, exitCode: index == lines.count - 1 && code != .success ? code : nil)
        }
        // A sink down (1) or misconfigured (78) is told by the summary and its worker's `gave up` line.
        if lines.isEmpty, code != .success { errors.writeEnding(Self.gaveUpText(summary), exitCode: code) }
        return code
    }

    /// The sinks that did not catch up though this import needed them, with why, and what to do.
    static func gaveUpText(_ summary: ImportRun.Summary) -> String {
        let failed = summary.sinks.filter { $0.value.gaveUp != nil && !($0.value.notNeeded && !$0.value.gaveUpMisconfigured) }
            .sorted { $0.key < $1.key }
        let reasons = failed.map { "sink '\($0.key)': \($0.value.gaveUp ?? "")" }.joined(separator: "; ")
        return "gave up on \(reasons.isEmpty ? "a sink" : reasons)\n  hint: "
            + (summary.sinkMisconfigured ? "fix the misconfigured sink's config, then import again"
                                         : "the entries stay in the journal: import again once the store is back to deliver them")
    }

    static func exitCode(_ summary: ImportRun.Summary) -> ExitCode {
        if summary.journalRefused { return .cannotCreate }
        if let failed = summary.firstFailed { return failed.cannotRead ? .noInput : .dataError }
        // A misconfigured sink waits for its config to be fixed: 78, also when another sink's store is
        // merely down (that one alone, 1, catches up by itself on the next run).
        if summary.sinkMisconfigured { return .config }
        guard summary.succeeded else { return .incomplete }
        // A file of which every element was skipped (a format or version not known) is no success.
        return summary.sources.contains(where: ImportReport.nothingUsable) ? .dataError : .success
    }

    struct PlannedSource {
        var name: String
        var input: String
        var source: any FiniteSource
    }

    /// The sources to read: the files on the command line, or the config's file sources.
    /// Every input is checked first (it exists, can be read, is not a folder of nothing), so
    /// that a wrong path fails before the journal is opened or created. `timeZone`
    /// (`--time-zone`) becomes the `time_zone` of every Apple Health export read.
    static func sources(_ paths: [String], loaded: LoadedConfig, timeZone: String? = nil) throws -> [PlannedSource] {
        var config = loaded.config
        if let timeZone {
            guard AppleHealthExportSource.Configuration.zone(named: timeZone) != nil else {
                throw UsageError("--time-zone '\(timeZone)' is not the name of a zone this system knows: give an IANA name "
                                     + "such as Europe/Berlin or America/New_York", command: "import")
            }
            for index in config.sources.indices where config.sources[index].type == "apple_health_export" {
                config.sources[index].options = config.sources[index].options.setting(key: "time_zone", to: timeZone)
            }
        }
        if paths.isEmpty {
            let configured = config.sources.filter { PluginList.source(type: $0.type) != nil }
            guard !configured.isEmpty else {
                throw UsageError("give the file to import, e.g. healthrouter import ~/Downloads/export.zip", command: "import")
            }
            return try configured.map { plugin in
                let kind = PluginList.source(type: plugin.type)!
                try InputPath.checkConfigured(plugin, loaded: loaded)
                let input = plugin.options["path"]?.scalar ?? plugin.name
                let source = try kind.make(plugin, loaded.context(for: plugin.name))
                try checkInput(source)
                return PlannedSource(name: plugin.name, input: input, source: source)
            }
        }
        return try paths.flatMap { path in
            try commandLineSources(path, config: config, loaded: loaded, timeZone: timeZone, command: "import")
        }
    }

    /// The sources reading `path` from the command line (`import PATH`, `backfill --from PATH`):
    /// the one its content picks, and for a folder of .ndjson files, Health Auto Export's .json
    /// files beside them (what the user exported there too) read by their own source after it,
    /// or they were left out without a word. Each input is checked.
    static func commandLineSources(_ path: String, config: HealthRouterConfig, loaded: LoadedConfig, timeZone: String? = nil,
                                   command: String) throws -> [PlannedSource] {
        let planned = try plannedSource(path, config: config, loaded: loaded, timeZone: timeZone, command: command)
        var isDirectory: ObjCBool = false
        guard planned.source is ReplaySource, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
              isDirectory.boolValue, HealthAutoExportFileSource.holdsDocuments(path),
              let kind = PluginList.source(type: "health_auto_export") else { return [planned] }
        let plugin = try commandLinePlugin(path, type: kind.type, config: config, name: command)
        let source = try kind.make(plugin, loaded.context(for: plugin.name))
        try checkInput(source)
        return [planned, PlannedSource(name: plugin.name, input: path, source: source)]
    }

    /// The source reading `path` from the command line, picked by its content, its input checked.
    private static func plannedSource(_ path: String, config: HealthRouterConfig, loaded: LoadedConfig,
                                      timeZone: String?, command: String) throws -> PlannedSource {
        try InputPath.checkCommandLine(path, command: command)
        let kind = PluginList.sources.first { $0.recognizes(path) } ?? PluginList.sources[0]
        var plugin = try commandLinePlugin(path, type: kind.type, config: config, name: command)
        if let timeZone {
            guard kind.type == "apple_health_export" else {
                throw UsageError("--time-zone applies to an Apple Health export, not to \(path) (its dates carry their offsets)",
                                 command: command)
            }
            plugin.options = plugin.options.setting(key: "time_zone", to: timeZone)
        }
        let source = try kind.make(plugin, loaded.context(for: plugin.name))
        try checkInput(source)
        return PlannedSource(name: plugin.name, input: path, source: source)
    }

    /// The source of type `type` reading `path` from the command line: the config's source of that
    /// type with `path` in place of its own when the config has one (so that its `user_id` holds),
    /// else one called `name` with the path alone. Of several: the one whose `path` is `path` or a
    /// folder holding it, else the first when they all have one `user_id`; sources of different
    /// users are refused (exit 64), as whose samples the file holds is not known (read with no
    /// user's, they took the place of a user's samples of the same ids).
    static func commandLinePlugin(_ path: String, type: String, config: HealthRouterConfig, name: String) throws -> PluginConfig {
        let matching = config.sources.filter { $0.type == type }
        guard !matching.isEmpty else { return PluginConfig.commandLine(name: name, type: type, path: path) }
        var plugin = matching[0]
        if matching.count > 1 {
            let given = realPath(path)
            if let named = matching.first(where: { source in
                guard let own = source.options["path"]?.scalar.map(realPath) else { return false }
                return given == own || given.hasPrefix(own.hasSuffix("/") ? own : own + "/")
            }) {
                plugin = named
            } else if Set(matching.map { $0.options["user_id"]?.scalar ?? "" }).count > 1 {
                let users = matching.map { "\($0.name): \($0.options["user_id"]?.scalar ?? "no user_id")" }.joined(separator: ", ")
                throw CommandFailure(message: "\(path): the config has \(matching.count) \(type) sources of different users (\(users)), "
                                         + "so whose samples the file holds is not known",
                                     hint: "make it (or its folder) the path of the source it belongs to, whose user_id is then "
                                         + "taken, or \(name == "backfill" ? "backfill" : "import") it with a config holding that source alone",
                                     code: .usage)
            }
        }
        plugin.options = plugin.options.setting(key: "path", to: path)
        return plugin
    }

    /// `path` with `~` expanded, made absolute and its symbolic links resolved (as it is when it
    /// cannot be resolved), to tell whether a config's path names a file given on the command line.
    private static func realPath(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        guard let resolved = realpath(expanded, nil) else { return expanded }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The source's own look at its input, before the journal is opened: a file plainly not what it
    /// reads fails here (65, or 66 when it cannot be read), leaving no state behind.
    static func checkInput(_ source: any FiniteSource) throws {
        do {
            try source.checkInput()
        } catch let error as SourceError {
            throw commandFailure(error)
        }
    }

    /// A source's error as the command reports it: 66 when the input could not be read at all,
    /// else 65; the message and the hint on their own lines.
    static func commandFailure(_ error: SourceError) -> CommandFailure {
        var message = error
        message.hint = nil
        return CommandFailure(message: message.description, hint: error.hint,
                              code: error.cannotRead ? .noInput : error.stateNotWritable ? .cannotCreate : .dataError)
    }
}
