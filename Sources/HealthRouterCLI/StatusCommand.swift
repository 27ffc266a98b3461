import Foundation
import HealthRouterCore

/// `healthrouter status`: where every sink stands.
enum StatusCommand {
    static let help = """
        usage: healthrouter status [--dead-letters] [--config FILE]

        Shows the journal and, per sink: its cursor (the last journal entry it wrote),
        its lag (entries after the cursor that its routes select), rows written (delivered
        from the journal by import and run; backfill and migrate writes are not counted),
        dead letters with their reasons, and the last error (in full below the table when
        it is long), and entries pruned before a sink wrote them (it was out of the config,
        added later, or renamed; also before its first run, from its cursor).
        Also lists entries that no route selects: they stay in the journal until
        journal.retain prunes them, and `healthrouter backfill SINK` delivers them once a
        route selects them (a sink's cursor has passed them).

          --dead-letters  list every dead letter of every sink (without it: the first 10
                          of each, and how many more there are)

        exit codes: 0 every sink caught up, 1 a sink lags, lacks pruned entries, has dead
                    letters or an error, 64 wrong options, 73 the state directory cannot be
                    one (a file is in its place) or its journal cannot be read (damaged, or a newer one), or
                    standard output cannot be written (a full disk), 78 the config is wrong
        """

    /// The widest last error the table shows; a longer one is cut there and printed whole below.
    static let errorWidth = 60

    /// How many dead letters of a sink `status` lists without `--dead-letters`.
    static let deadLettersShown = 10

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "status", flags: ["--dead-letters"])
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        try arguments.refusePositional(command: "status")
        let loaded = try LoadedConfig.load(arguments, environment: environment, usesSources: false, usesSinks: [])
        // Each sink's own keys too (no I/O): a misspelt one is the config error `check` reports.
        _ = try loaded.sinkSpecs()
        let config = loaded.config
        let journalPath = (config.stateDirectory as NSString).appendingPathComponent("journal.sqlite")
        print("config           \(loaded.origin)")
        print("state directory  \(config.stateDirectory)")
        if let problem = StorePath.folderProblem(config.stateDirectory, key: "state_directory") {
            throw CommandFailure(message: problem, hint: "nothing can have been imported there", code: .cannotCreate)
        }
        guard FileManager.default.fileExists(atPath: journalPath) else {
            print("journal          empty: nothing imported yet (try: healthrouter import ~/Downloads/export.zip)")
            return .success
        }
        let journal = try JournalOpenHint.open(config.stateDirectory, role: .inspector)
        let head = try journal.head()
        let counts = try journal.counts()
        let oldest = try journal.oldestRetained()
        var journalLine = "journal          \(NumberText.grouped(counts.entries)) entries"
        if let oldest { journalLine += " (seq \(NumberText.grouped(oldest))–\(NumberText.grouped(head)))" }
        // The ids the journal knows (by which a sample imported again is met as a duplicate) outlive
        // their entries (journal.retain) and include those deleted since: not the samples it holds.
        journalLine += ", \(NumberText.grouped(counts.samples)) sample ids known (kept after pruning, deleted ones included), "
            + "\(NumberText.grouped(counts.deleted)) deleted ids"
        print(journalLine)

        let states = try journal.sinkStates(named: config.sinks.map(\.name))
        let routes = loaded.routes
        var healthy = true
        var rows: [[String]] = [["sink", "type", "cursor", "lag", "rows written", "dead letters", "last error"]]
        for (sink, state) in zip(config.sinks, states) {
            let lag = try journal.lag(ofSink: sink.name, after: state.cursor, routes: routes)
            if lag > 0 || state.deadLetters > 0 || state.lastError != nil { healthy = false }
            rows.append([sink.name, sink.type, NumberText.grouped(state.cursor), NumberText.grouped(lag),
                         NumberText.grouped(state.written), NumberText.grouped(state.deadLetters),
                         state.lastError.map { $0.count > Self.errorWidth ? $0.prefix(Self.errorWidth - 1) + "…" : $0 } ?? "-"])
        }
        print("")
        print(Table.render(rows))
        for state in states {
            guard let error = state.lastError, error.count > Self.errorWidth else { continue }
            print("\nlast error of \(state.sink): \(error)")
        }
        for (sink, state) in zip(config.sinks, states) {
            let gaps = try journal.lackingRanges(sink: sink.name, cursor: state.cursor)
            guard !gaps.isEmpty else { continue }
            healthy = false
            let ranges = Journal.describe(gaps)
            print("\n\(sink.name) lacks entries \(ranges): they were pruned "
                  + "(journal.retain) before it wrote them (it was out of the config, or added later); "
                  + "`healthrouter backfill \(sink.name) --from <export.zip or dump>` (or a `migrate --to \(sink.name)` from a "
                  + "store that holds them) brings their samples back")
        }
        for sink in config.sinks {
            let letters = try journal.deadLetters(sink: sink.name)
            guard !letters.isEmpty else { continue }
            print("\ndead letters of \(sink.name) (journal seq: reason):")
            let shown = arguments.flags.contains("--dead-letters") ? letters.count : Self.deadLettersShown
            for letter in letters.prefix(shown) { print("  \(letter.sequence): \(letter.reason)") }
            if letters.count > shown {
                print("  … and \(NumberText.grouped(Int64(letters.count - shown))) more (status --dead-letters lists them all)")
            }
        }
        var unrouted: [String: Int64] = [:]
        for case let (type?, source, count) in try journal.entryCountsByTypeAndSource() {
            if !config.sinks.contains(where: { routes.selects(sink: $0.name, type: type, source: source) }) {
                unrouted[type, default: 0] += count
            }
        }
        if !unrouted.isEmpty {
            print("\nentries no route selects (kept in the journal until journal.retain prunes them; add a route, then "
                  + "`healthrouter backfill SINK` delivers them):")
            for (type, count) in unrouted.sorted(by: { $0.value > $1.value }) {
                print("  \(NumberText.grouped(count)) × \(type)")
            }
        }
        return healthy ? .success : .incomplete
    }
}
