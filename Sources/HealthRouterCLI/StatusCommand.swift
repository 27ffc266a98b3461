import Foundation
import HealthRouterCore

/// `healthrouter status`: where every sink stands.
enum StatusCommand {
    static let help = """
        usage: healthrouter status [--dead-letters] [--format text|json|prometheus] [--config FILE]

        Shows the journal and, per sink: its cursor (the last journal entry it wrote),
        its lag (entries after the cursor that its routes select), rows written (delivered
        from the journal by import and run; backfill and migrate writes are not counted),
        dead letters with their reasons, and the last error (in full below the table when
        it is long), and entries pruned before a sink wrote them, of the kinds its routes
        select (it was out of the config, added later, or renamed; also before its first run,
        from its cursor).
        Also lists entries that no route selects: they stay in the journal until
        journal.retain prunes them, and `healthrouter backfill SINK` delivers them once a
        route selects them (a sink's cursor has passed them).

          --dead-letters  list every dead letter of every sink (without it: the first 10
                          of each, and how many more there are)
          --format json   one JSON object on standard output instead of the table, for a
                          monitor (Telegraf's exec input, a cron job's jq): the journal's
                          counts, per sink cursor, lag, written, dead_letters,
                          pruned_entries_lacking, last_error, updated_at, lacking_ranges and
                          dead_letter_list, the entries no route selects by type
                          (unrouted), and healthy; counts are numbers, the exit code as below
          --format prometheus
                          the journal's head and entries and each sink's figures in
                          Prometheus' text format, named as an admin source's GET /metrics
                          names them: for node_exporter's textfile collector after a cron
                          job's import (write to a temporary file, then rename it there)

        exit codes: 0 every sink caught up, 1 a sink lags, lacks pruned entries, has dead
                    letters or an error, 64 wrong options, 66 no journal (nothing was imported
                    or run with this state directory: another config's or working directory's,
                    or none yet; an empty journal.sqlite), 73 the state directory cannot be
                    one (a file is in its place) or its journal cannot be read (damaged, or a newer one; a
                    folder of another user's this one may not look into), or
                    standard output cannot be written (a full disk), 78 the config is wrong
        """

    /// The widest last error the table shows; a longer one is cut there and printed whole below.
    static let errorWidth = 60

    /// How many dead letters of a sink `status` lists without `--dead-letters`.
    static let deadLettersShown = 10

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "status")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        try arguments.refusePositional(command: "status")
        let format = arguments.values["--format"] ?? "text"
        guard ["text", "json", "prometheus"].contains(format) else {
            throw UsageError("--format must be text, json or prometheus, not '\(format)'", command: "status")
        }
        let loaded = try LoadedConfig.load(arguments, environment: environment, usesSources: false, usesSinks: [])
        // Each sink's own keys too (no I/O): a misspelt one is the config error `check` reports.
        _ = try loaded.sinkSpecs()
        let config = loaded.config
        if format == "text" {
            print("config           \(loaded.origin)")
            print("state directory  \(config.stateDirectory)")
        }
        if let problem = StorePath.folderProblem(config.stateDirectory, key: "state_directory") {
            throw CommandFailure(message: problem, hint: "nothing can have been imported there", code: .cannotCreate)
        }
        // Nothing is created, nor written into an empty file: a state directory without a journal
        // is mostly another config's or working directory's than the imports', not one all is well in.
        if let absence = JournalFile.absence(in: config.stateDirectory, origin: loaded.origin,
                                             otherwise: "import an export (healthrouter import ~/Downloads/export.zip) "
                                                 + "or start `healthrouter run`") {
            throw absence
        }
        let shown = arguments.flags.contains("--dead-letters") ? nil : Self.deadLettersShown
        let journal = try JournalOpenHint.open(config.stateDirectory, role: .inspector)
        let report = try StatusReport.read(journal, config: config, routes: loaded.routes)
        switch format {
        case "json": print(report.json(config: loaded.origin, stateDirectory: config.stateDirectory, deadLettersShown: shown))
        case "prometheus": print(report.prometheus, terminator: "")
        default: printTable(report, deadLettersShown: shown)
        }
        return report.healthy ? .success : .incomplete
    }

    /// The report for people: the journal's line, the sinks' table, then what needs a look.
    private static func printTable(_ report: StatusReport, deadLettersShown shown: Int?) {
        let figures = report.journal
        var journalLine = "journal          \(NumberText.grouped(figures.entries)) entries"
        if let oldest = figures.oldest { journalLine += " (seq \(NumberText.grouped(oldest))–\(NumberText.grouped(figures.head)))" }
        // The ids the journal knows (by which a sample imported again is met as a duplicate) outlive
        // their entries (journal.retain) and include those deleted since: not the samples it holds.
        journalLine += ", \(NumberText.grouped(figures.sampleIdsKnown)) sample ids known (kept after pruning, deleted ones included), "
            + "\(NumberText.grouped(figures.deletedIds)) deleted ids"
        print(journalLine)
        var rows: [[String]] = [["sink", "type", "cursor", "lag", "rows written", "dead letters", "last error"]]
        for sink in report.sinks {
            rows.append([sink.name, sink.type, NumberText.grouped(sink.state.cursor), NumberText.grouped(sink.lag),
                         NumberText.grouped(sink.state.written), NumberText.grouped(sink.state.deadLetters),
                         sink.state.lastError.map { $0.count > Self.errorWidth ? $0.prefix(Self.errorWidth - 1) + "…" : $0 } ?? "-"])
        }
        print("")
        print(Table.render(rows))
        for sink in report.sinks {
            guard let error = sink.state.lastError, error.count > Self.errorWidth else { continue }
            print("\nlast error of \(sink.name): \(error)")
        }
        for sink in report.sinks where !sink.gaps.isEmpty {
            print("\n\(sink.name) lacks entries \(Journal.describe(sink.gaps)): they were pruned "
                  + "(journal.retain) before it wrote them (it was out of the config, or added later); "
                  + "`healthrouter backfill \(sink.name) --from <export.zip or dump>` (or a `migrate --to \(sink.name)` from a "
                  + "store that holds them) brings their samples back")
        }
        for sink in report.sinks where !sink.deadLetters.isEmpty {
            let letters = sink.deadLetters
            print("\ndead letters of \(sink.name) (journal seq: reason):")
            let shown = shown ?? letters.count
            for letter in letters.prefix(shown) { print("  \(letter.sequence): \(letter.reason)") }
            if letters.count > shown {
                print("  … and \(NumberText.grouped(Int64(letters.count - shown))) more (status --dead-letters lists them all)")
            }
        }
        if !report.unrouted.isEmpty {
            print("\nentries no route selects (kept in the journal until journal.retain prunes them; add a route, then "
                  + "`healthrouter backfill SINK` delivers them):")
            for (type, count) in report.unrouted {
                print("  \(NumberText.grouped(count)) × \(type)")
            }
        }
    }
}
