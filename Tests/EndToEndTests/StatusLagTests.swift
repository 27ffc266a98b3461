import HealthRouterCore
import TestSupport
import Foundation
import Testing

/// `status` counts as a sink's lag the entries after its cursor that its routes select: a sink
/// added to the config, which has not run yet, lags by what it will deliver, not by the whole
/// journal, and `status` exits 0 when no sink has anything left to deliver.
@Suite struct StatusLagTests {
    /// The lag column of `sink`'s row in `status`'s table.
    static func lag(_ stdout: String, sink: String) -> String? {
        guard let row = stdout.split(separator: "\n").first(where: { $0.hasPrefix(sink + " ") }) else { return nil }
        let columns = row.split(separator: " ", omittingEmptySubsequences: true)
        return columns.count > 3 ? String(columns[3]) : nil
    }

    @Test func aSinkLagsOnlyByWhatItsRoutesSelect() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 300, to: export, zip: false, quirks: false)
        let base = """
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }

            """
        let first = try writeConfig(base, in: directory)
        let imported = try CommandRunner.run(["import", export, "--config", first, "--quiet"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")

        // Added after the import, never run: `uv` selects a type the export does not hold, `all` everything.
        let later = directory + "/later.yaml"
        try (base + """
              uv: { type: ndjson, directory: \(directory)/uv }
              all: { type: ndjson, directory: \(directory)/all }
            routes:
              - types: ["*"]
                to: [local, all]
              - types: [HKQuantityTypeIdentifierUVExposure]
                to: [uv]
            """).write(toFile: later, atomically: true, encoding: .utf8)
        let status = try CommandRunner.run(["status", "--config", later], in: directory)
        #expect(status.status == 1, "\(status.stdout)")
        #expect(Self.lag(status.stdout, sink: "local") == "0", "\(status.stdout)")
        #expect(Self.lag(status.stdout, sink: "uv") == "0", "\(status.stdout)")
        let all = try #require(Self.lag(status.stdout, sink: "all").flatMap { Int($0.replacingOccurrences(of: ",", with: "")) },
                               "\(status.stdout)")
        #expect(all > 300, "\(status.stdout)")

        // Without the sink that has something to deliver, nothing lags.
        try (base + """
              uv: { type: ndjson, directory: \(directory)/uv }
            routes:
              - types: ["*"]
                to: [local]
              - types: [HKQuantityTypeIdentifierUVExposure]
                to: [uv]
            """).write(toFile: later, atomically: true, encoding: .utf8)
        let quiet = try CommandRunner.run(["status", "--config", later], in: directory)
        #expect(quiet.status == 0, "\(quiet.stdout)")
        #expect(Self.lag(quiet.stdout, sink: "uv") == "0", "\(quiet.stdout)")
    }

    /// A generated export of `records` records imported into sqlite sinks: `local`
    /// (health.sqlite), then `others` (`<name>.sqlite`); the folder, the export's path and the config's.
    static func imported(records: Int = 50, others: [String] = []) throws -> (directory: String, export: String, config: String) {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: records, to: export, zip: false, quirks: false)
        let sinks = (["local: { type: sqlite, path: \(directory)/state/health.sqlite }"]
            + others.map { "\($0): { type: sqlite, path: \(directory)/state/\($0).sqlite }" })
            .map { "  " + $0 }.joined(separator: "\n")
        let config = try writeConfig("state_directory: \(directory)/state\nsinks:\n\(sinks)\n\n", in: directory)
        let imported = try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        return (directory, export, config)
    }

    /// A generated export of 50 records imported into the sqlite sink `local` with `journal.retain:
    /// 0s`, which prunes every entry: the folder, the export's path, the config's text (for
    /// configs that add sinks to it) and the journal's head.
    static func importedAndPruned() throws -> (directory: String, export: String, base: String, head: Int64) {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let base = """
            state_directory: \(directory)/state
            journal: { retain: 0s }
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }

            """
        let first = try writeConfig(base, in: directory)
        #expect(try CommandRunner.run(["import", export, "--config", first, "--quiet"], in: directory).status == 0)
        return (directory, export, base, try Journal(stateDirectory: directory + "/state").head())
    }

    /// `status` lists a sink's first ten dead letters and counts the rest; `--dead-letters` lists
    /// every one.
    @Test func deadLettersPastTheTenthAreListedOnRequest() throws {
        let (directory, _, config) = try Self.imported()
        do {
            let journal = try Journal(stateDirectory: directory + "/state")
            for sequence in 1...12 { try journal.addDeadLetter(sink: "local", sequence: Int64(sequence), reason: "refused \(sequence)") }
        }
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 1, "\(status.stdout)")
        #expect(status.stdout.contains("  10: refused 10\n"), "\(status.stdout)")
        #expect(!status.stdout.contains("11: refused 11"), "\(status.stdout)")
        #expect(status.stdout.contains("… and 2 more (status --dead-letters lists them all)"), "\(status.stdout)")
        let all = try CommandRunner.run(["status", "--dead-letters", "--config", config], in: directory)
        #expect(all.status == 1, "\(all.stdout)")
        #expect(all.stdout.contains("  11: refused 11\n  12: refused 12\n"), "\(all.stdout)")
        #expect(!all.stdout.contains("more (status"), "\(all.stdout)")
        // The cause fixed, a backfill from the journal writes them again: they are no longer listed;
        // one of an entry it did not write (not in the journal) stays.
        try Journal(stateDirectory: directory + "/state").addDeadLetter(sink: "local", sequence: 999_999, reason: "gone")
        // A backfill narrowed to where none of them is writes none of them: they stay.
        let later = try CommandRunner.run(["backfill", "local", "--since", "2035-01-01", "--config", config, "--quiet"], in: directory)
        #expect(later.status == 0 && !later.stdout.contains("dead letter"), "\(later.stdout)")
        // The first entry's sample deleted since: its dead letter is moot.
        do {
            let journal = try Journal(stateDirectory: directory + "/state")
            guard case .sample(let first) = try journal.entries(after: 0, limit: 1).first?.decoded().item else {
                Issue.record("no first sample")
                return
            }
            _ = try journal.append([.tombstone(Tombstone(ids: [first.id]))], source: "test")
        }
        let backfill = try CommandRunner.run(["backfill", "local", "--config", config, "--quiet"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stderr)")
        #expect(backfill.stdout.contains("11 dead letters of 'local' written now: no longer listed"), "\(backfill.stdout)")
        #expect(backfill.stdout.contains("1 dead letter of 'local' of samples deleted since or no longer routed to it"),
                "\(backfill.stdout)")
        let after = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(after.status == 1 && after.stdout.contains("999999: gone") && !after.stdout.contains("refused 1\n"),
                "\(after.stdout)")
    }

    /// `status --format json`: one JSON object on standard output with what the table shows (the
    /// journal, each sink's cursor, lag, dead letters, gaps and last error, the entries no route
    /// selects), counts as numbers, and the same exit code.
    /// `--format prometheus`: the figures in Prometheus' text format.
    @Test func statusAsJSONAndPrometheusText() throws {
        let (directory, _, config) = try Self.imported(others: ["spare"])
        let configured = try String(contentsOfFile: config, encoding: .utf8)
        func write(_ yaml: String, _ name: String) throws -> String {
            try yaml.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            return directory + "/" + name
        }
        do {
            let journal = try Journal(stateDirectory: directory + "/state")
            for sequence in 1...12 { try journal.addDeadLetter(sink: "local", sequence: Int64(sequence), reason: "refused \(sequence)") }
            try journal.notePrunedGap(sink: "spare", from: 1, through: 5)
        }
        // `spare` selects heart rate only: the rest is no route's.
        let narrowed = try write(configured + """
            routes:
              - types: ["*"]
                to: [local]
              - types: [heartRate]
                to: [spare]
            """, "narrowed.yaml")
        let result = try CommandRunner.run(["status", "--format", "json", "--config", narrowed], in: directory)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(object["healthy"] as? Bool == false && object["state_directory"] as? String == directory + "/state")
        let journal = try #require(object["journal"] as? [String: Any], "\(result.stdout)")
        let head = try #require(journal["head"] as? Int)
        #expect(journal["entries"] as? Int == head && journal["first_sequence"] as? Int == 1, "\(journal)")
        let sinks = try #require(object["sinks"] as? [[String: Any]])
        #expect(sinks.map { $0["name"] as? String } == ["local", "spare"])
        let local = sinks[0], spare = sinks[1]
        #expect(local["type"] as? String == "sqlite" && local["cursor"] as? Int == head && local["lag"] as? Int == 0, "\(local)")
        #expect(local["dead_letters"] as? Int == 12 && (local["dead_letter_list"] as? [[String: Any]])?.count == 10, "\(local)")
        #expect((local["dead_letter_list"] as? [[String: Any]])?.first?["reason"] as? String == "refused 1", "\(local)")
        #expect(local["last_error"] is NSNull && local["updated_at"] is String, "\(local)")
        #expect(spare["pruned_entries_lacking"] as? Int == 5 && (spare["lacking_ranges"] as? [[Int]]) == [[1, 5]], "\(spare)")
        let unrouted = try #require(object["unrouted"] as? [String: Int], "\(result.stdout)")
        #expect(unrouted.isEmpty, "every type is routed to local: \(unrouted)")
        let all = try CommandRunner.run(["status", "--format", "json", "--dead-letters", "--config", narrowed], in: directory)
        let every = try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any]
        #expect(((every?["sinks"] as? [[String: Any]])?.first?["dead_letter_list"] as? [Any])?.count == 12, "\(all.stdout)")

        // A type no route selects is counted under `unrouted`.
        let heartOnly = try write(configured + """
            routes:
              - types: [heartRate]
                to: [local, spare]
            """, "heart.yaml")
        let partly = try CommandRunner.run(["status", "--format", "json", "--config", heartOnly], in: directory)
        let partial = try #require(try JSONSerialization.jsonObject(with: Data(partly.stdout.utf8)) as? [String: Any], "\(partly.stdout)")
        let counted = try #require(partial["unrouted"] as? [String: Int], "\(partly.stdout)")
        #expect(!counted.isEmpty && counted["HKQuantityTypeIdentifierHeartRate"] == nil, "\(counted)")

        let wrong = try CommandRunner.run(["status", "--format", "yaml", "--config", config], in: directory)
        #expect(wrong.status == 64 && wrong.stderr.contains("--format must be text, json or prometheus, not 'yaml'"),
                "\(wrong.stderr)")

        // For node_exporter's textfile collector: every line a comment or `name{labels} value`,
        // under the names of an admin source's /metrics, and the same exit code.
        let metrics = try CommandRunner.run(["status", "--format", "prometheus", "--config", narrowed], in: directory)
        #expect(metrics.status == 1, "\(metrics.stdout)\(metrics.stderr)")
        let lines = metrics.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "" && lines.dropLast().allSatisfy { $0.hasPrefix("# HELP ") || $0.hasPrefix("# TYPE ")
            || $0.wholeMatch(of: /healthrouter_[a-z_]+(\{sink="[a-z]+"\})? [0-9]+/) != nil }, "\(metrics.stdout)")
        for line in ["healthrouter_journal_head_sequence \(head)", "healthrouter_journal_entries \(head)",
                     "healthrouter_sink_dead_letters{sink=\"local\"} 12", "healthrouter_sink_lag_entries{sink=\"spare\"} 0",
                     "healthrouter_sink_pruned_entries_lacking{sink=\"spare\"} 5", "healthrouter_status_healthy 0"] {
            #expect(lines.contains(Substring(line)), "\(line) in \(metrics.stdout)")
        }
    }

    /// The README's textfile recipe, run as it is written, in a script under `set -e`: a report of
    /// a sink that lags (exit 1) is kept; no journal (exit 66) keeps the last one, and the script
    /// goes on (`[ $? -le 1 ]` after the command stopped such a script at exit 1, the file never written).
    @Test func theReadmesTextfileRecipeKeepsALaggingReport() throws {
        let readme = try String(contentsOfFile: CommandRunner.repository + "/README.md", encoding: .utf8)
        let recipe = try #require(readme.components(separatedBy: "```sh\n").dropFirst()
            .map { $0.components(separatedBy: "```")[0] }.first { $0.contains("status --format prometheus >") })
        let (directory, _, config) = try Self.imported()
        let folder = directory + "/textfile"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let bin = (CommandRunner.executable as NSString).deletingLastPathComponent
        func runRecipe(in place: String) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-e", "-c", recipe + "echo done > \"$dir/reached\"\n"]
            process.currentDirectoryURL = URL(fileURLWithPath: place)
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["dir"] = folder
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        // `later`, added after the import, lags: exit 1, a report to keep.
        try (String(contentsOfFile: config, encoding: .utf8) + "  later: { type: sqlite, path: \(directory)/later.sqlite }\n")
            .write(toFile: directory + "/healthrouter.yaml", atomically: true, encoding: .utf8)
        #expect(try runRecipe(in: directory) == 0)
        let kept = try String(contentsOfFile: folder + "/healthrouter.prom", encoding: .utf8)
        #expect(kept.contains("healthrouter_status_healthy 0") && kept.contains("healthrouter_sink_lag_entries{sink=\"later\"}"), "\(kept)")
        #expect(FileManager.default.fileExists(atPath: folder + "/reached"))
        // Elsewhere, no journal (exit 66): the last report stays, and the script goes on.
        try FileManager.default.removeItem(atPath: folder + "/reached")
        let elsewhere = makeTemporaryDirectory()
        #expect(try runRecipe(in: elsewhere) == 0)
        #expect(try String(contentsOfFile: folder + "/healthrouter.prom", encoding: .utf8) == kept)
        #expect(FileManager.default.fileExists(atPath: folder + "/reached"))
    }

    /// `status` on a state directory without a journal (a cron job's other working directory or
    /// config, or nothing imported yet) or with an empty `journal.sqlite` (a failed restore) says
    /// so and exits 66 in every format, printing no report: it said all was well (exit 0,
    /// `healthy` true, head 0), and wrote the journal's tables into the empty file. It creates
    /// nothing and writes nothing; nor do `dump` and a `backfill` from the journal.
    @Test func aStateDirectoryWithoutAJournalIsNoReport() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
            """, in: directory)
        #expect(try CommandRunner.exitCodesInHelp("status").contains(66))
        for format in ["text", "json", "prometheus"] {
            let result = try CommandRunner.run(["status", "--format", format, "--config", config], in: directory)
            #expect(result.status == 66, "\(format): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("there is no state directory \(directory)/state: nothing was imported or run with it"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("hint: this used the config \(config): a cron job or service run from another"),
                    "\(result.stderr)")
            #expect(format == "text" || result.stdout.isEmpty, "\(format): \(result.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/state"))

        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        let journal = directory + "/state/journal.sqlite"
        #expect(FileManager.default.createFile(atPath: journal, contents: nil))
        for format in ["text", "json", "prometheus"] {
            let result = try CommandRunner.run(["status", "--format", format, "--config", config], in: directory)
            #expect(result.status == 66, "\(format): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("the journal \(journal) is empty (0 bytes)"), "\(result.stderr)")
            #expect(format == "text" || result.stdout.isEmpty, "\(format): \(result.stdout)")
        }
        let dump = try CommandRunner.run(["dump", "--config", config], in: directory)
        #expect(dump.status == 66 && dump.stderr.contains("the journal \(journal) is empty (0 bytes)"), "\(dump.stderr)")
        let backfill = try CommandRunner.run(["backfill", "local", "--config", config], in: directory)
        #expect(backfill.status == 66 && backfill.stderr.contains("is empty (0 bytes)"), "\(backfill.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/state") == ["journal.sqlite"])
        #expect((try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) == 0)

        // An import that has just begun it (its lock held): the file is not said to be one to delete.
        let held = try holdImportLock(in: directory + "/state")
        defer { close(held) }
        let begun = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(begun.status == 66 && begun.stderr.contains("the journal \(journal) is empty (0 bytes): healthrouter (pid 4242) "
                                                            + "has just begun writing it"), "\(begun.stderr)")
        #expect(!begun.stderr.contains("delete it"), "\(begun.stderr)")

        // Empty for minutes with the lock held: not one just begun (a daemon that goes on writing the
        // journal this file replaced, a restore that failed beside it), which would never fill.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: journal)
        let replaced = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(replaced.status == 66 && replaced.stderr.contains("the journal \(journal) is empty (0 bytes): nothing was ever written"),
                "\(replaced.stderr)")
        #expect(replaced.stderr.contains("hint: healthrouter (pid 4242) runs on this state directory and writes a journal this file "
                                         + "replaced: stop it first;"), "\(replaced.stderr)")
        #expect(!replaced.stderr.contains("in a moment"), "\(replaced.stderr)")
    }

    /// A state directory `status` cannot look into (another user's, as a monitoring user meets
    /// the service's) holds a journal all the same: it is said not to be readable (exit 73), not
    /// that nothing was imported there (66, "there is no journal yet"), and the hint names the folder
    /// and its owner to run it as, not a folder to make writable; so for `dump`.
    @Test func aStateDirectoryThatCannotBeLookedIntoIsNotSaidToHaveNoJournal() throws {
        let (directory, _, config) = try Self.imported()
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: directory + "/state")
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory + "/state") }
        for command in [["status"], ["status", "--format", "json"], ["dump"]] {
            let result = try CommandRunner.runUnprivileged(command + ["--config", config], in: directory)
            #expect(result.status == 73, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("cannot open the journal in \(directory)/state"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("no journal"), "\(command): \(result.stderr)")
            // Said why, and what to do: not that the folder should be writable, which a read needs not.
            #expect(result.stderr.contains("may not look into ") && result.stderr.contains("/state (")
                        && result.stderr.contains("mode 000): run this as "), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("is writable"), "\(command): \(result.stderr)")
        }
    }

    /// A store `dump --from` or `migrate --from` reads behind a folder this user may not enter (the
    /// service's state directory, read by a login) is said so, exit 73, with the folder and the user
    /// to run it as, as the journal is: it was said not to exist (66) and to be filled by an import
    /// or a backfill.
    @Test func aStoreBehindAFolderThatCannotBeLookedIntoIsNotSaidToBeMissing() throws {
        let (directory, _, config) = try Self.imported(others: ["copy"])
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: directory + "/state")
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory + "/state") }
        for command in [["dump", "--from", "local"], ["migrate", "--from", "local", "--to", "copy"]] {
            let result = try CommandRunner.runUnprivileged(command + ["--config", config], in: directory)
            #expect(result.status == 73, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("cannot open the sink 'local' (sqlite): \(directory)/state/health.sqlite is in a folder "
                                           + "this user may not look into"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("may not look into \(directory)/state (") && result.stderr.contains("mode 000): run this as "),
                    "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("does not exist") && !result.stderr.contains("fill the store"), "\(command): \(result.stderr)")
        }
    }

    /// A store copied over `journal.sqlite` (another SQLite database under its name) is refused by
    /// `status` and `dump`, naming its tables, and left as it was: `status` added the journal's
    /// tables to it and reported every sink healthy at head 0.
    @Test func aStoreCopiedOverTheJournalIsNotReadAsOne() throws {
        let (directory, _, config) = try Self.imported()
        let journal = directory + "/state/journal.sqlite"
        try FileManager.default.removeItem(atPath: journal)
        try? FileManager.default.removeItem(atPath: journal + "-wal")
        try? FileManager.default.removeItem(atPath: journal + "-shm")
        try FileManager.default.copyItem(atPath: directory + "/state/health.sqlite", toPath: journal)
        func tables() throws -> String? {
            try SQLiteDatabase(path: journal).scalarText("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table'")
        }
        let before = try tables()
        for command in [["status"], ["status", "--format", "json"], ["dump"]] {
            let result = try CommandRunner.run(command + ["--config", config], in: directory)
            #expect(result.status == 73, "\(command): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("\(journal) is not a healthrouter journal: it is another SQLite database (its tables: "
                                           + "activity_summaries, correlation_members, correlations, deleted_samples, …)"),
                    "\(command): \(result.stderr)")
            #expect(result.stderr.contains("move this file away to start a new journal"), "\(result.stderr)")
        }
        #expect(try tables() == before)
    }

    /// A sink that lacks entries pruned before it wrote them says so in `status` until a backfill
    /// from a file brings them back.
    @Test func aGapOfPrunedEntriesIsShownUntilABackfillFromAFile() throws {
        let (directory, export, config) = try Self.imported()
        do {
            let journal = try Journal(stateDirectory: directory + "/state")
            try journal.notePrunedGap(sink: "local", from: 1, through: 20)
            try journal.notePrunedGap(sink: "local", from: 31, through: 40)
            try journal.notePrunedGap(sink: "local", from: 15, through: 25)  // overlaps the first: one range
            try journal.addDeadLetter(sink: "local", sequence: 999_999, reason: "pruned since")
        }
        let status = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(status.status == 1)
        #expect(status.stdout.contains("local lacks entries 1–25, 31–40: they were pruned (journal.retain) before it wrote them"),
                "\(status.stdout)")
        // A narrowed backfill leaves the note, and says so; a whole one forgets it.
        let narrowed = try CommandRunner.run(["backfill", "local", "--from", export, "--types", "heartRate", "--config", config,
                                              "--quiet"], in: directory)
        #expect(narrowed.stdout.contains("lacks entries 1–25, 31–40 stays (a narrowed backfill)"), "\(narrowed.stdout)")
        let backfill = try CommandRunner.run(["backfill", "local", "--from", export, "--config", config, "--quiet"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stderr)")
        #expect(backfill.stdout.contains("is forgotten: this file is taken to hold their samples"), "\(backfill.stdout)")
        #expect(backfill.stdout.contains("1 dead letter of 'local' whose entries were pruned: no longer listed"), "\(backfill.stdout)")
        let after = try CommandRunner.run(["status", "--config", config], in: directory)
        #expect(after.status == 0 && !after.stdout.contains("lacks entries"), "\(after.stdout)")
    }

    /// A sink added to the config after entries were pruned, and backfilled from the export before
    /// its first run (no gap noted yet): its first run does not note the entries the backfill
    /// brought back (it told the user to do what they had just done).
    @Test func aSinkBackfilledBeforeItsFirstRunLacksNothing() throws {
        let (directory, export, _, _) = try Self.importedAndPruned()
        let journal = try Journal(stateDirectory: directory + "/state")
        #expect(try journal.oldestRetained() == nil)   // every entry pruned
        let second = directory + "/second.yaml"
        try """
            state_directory: \(directory)/state
            journal: { retain: 0s }
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              late: { type: sqlite, path: \(directory)/state/late.sqlite }
            """.write(toFile: second, atomically: true, encoding: .utf8)
        let backfill = try CommandRunner.run(["backfill", "late", "--from", export, "--config", second, "--quiet"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stdout)\(backfill.stderr)")
        let imported = try CommandRunner.run(["import", export, "--config", second], in: directory)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(!imported.stderr.contains("were pruned (journal.retain) before this sink wrote them"), "\(imported.stderr)")
        let status = try CommandRunner.run(["status", "--config", second], in: directory)
        #expect(status.status == 0 && !status.stdout.contains("lacks entries"), "\(status.stdout)")
    }

    /// A sink of another config on the same state directory, which has not run since the first
    /// config's import pruned every entry: `status` says what it lacks (its lag is 0, its store
    /// empty) before its worker notes it. It said all was well, and exited 0.
    @Test func aSinkThatHasNotRunSinceAPruneIsShownLacking() throws {
        let (directory, export, base, head) = try Self.importedAndPruned()
        let second = directory + "/second.yaml"
        try (base + "  late: { type: sqlite, path: \(directory)/state/late.sqlite }\n")
            .write(toFile: second, atomically: true, encoding: .utf8)
        let status = try CommandRunner.run(["status", "--config", second], in: directory)
        #expect(status.status == 1, "\(status.stdout)")
        #expect(status.stdout.contains("late lacks entries 1–\(head): they were pruned"), "\(status.stdout)")
        #expect(!status.stdout.contains("local lacks"), "\(status.stdout)")
        // A whole migration from a sink that lacks nothing brings them back, as `status` says it
        // would, before the sink's worker noted them.
        let migrated = try CommandRunner.run(["migrate", "--from", "local", "--to", "late", "--config", second, "--quiet"],
                                             in: directory)
        #expect(migrated.stdout.contains("the note that 'late' lacks entries 1–\(head) (pruned before it wrote them) is forgotten"),
                "\(migrated.stdout)\(migrated.stderr)")
        let after = try CommandRunner.run(["status", "--config", second], in: directory)
        #expect(after.status == 0 && !after.stdout.contains("lacks entries"), "\(after.stdout)")
        #expect(try CommandRunner.run(["import", export, "--config", second, "--quiet"], in: directory).status == 0)
        #expect(!(try CommandRunner.run(["status", "--config", second], in: directory)).stdout.contains("lacks entries"))
        // A sink added after that: an import's summary says what it lacks, beside its "caught up".
        let third = directory + "/third.yaml"
        try (base + "  late: { type: sqlite, path: \(directory)/state/late.sqlite }\n"
             + "  later: { type: sqlite, path: \(directory)/state/later.sqlite }\n").write(toFile: third, atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(["import", export, "--config", third], in: directory)
        #expect(imported.stdout.contains("later  sqlite  0 rows written, caught up\n      lacks entries 1–\(head): pruned "
                                         + "(journal.retain) before it wrote them; `healthrouter backfill later --from"),
                "\(imported.stdout)")
        #expect(imported.stdout.split(separator: "\n").filter { $0.contains("lacks entries") }.count == 1, "\(imported.stdout)")
    }

    /// A sink that had delivered every entry before they were pruned, and whose store is down
    /// throughout the next import (its worker never opens it): the summary says it did not catch
    /// up, not that it lacks the entries pruned, which `status` does not say either. It said
    /// "lacks entries 1–N: pruned (journal.retain) before it wrote them" of a sink that wrote them
    /// all (the worker's cursor, never read from its store, was taken for 0).
    @Test func aSinkDownThroughoutAnImportLacksNothingItWroteBeforeThePrune() throws {
        let (directory, export, base, head) = try Self.importedAndPruned()
        #expect(try Journal(stateDirectory: directory + "/state").oldestRetained() == nil)   // every entry pruned
        // The mirror had delivered them all (its store, another server, is down now).
        try Journal(stateDirectory: directory + "/state").setCursor(sink: "mirror", to: head, written: Int(head))
        let second = directory + "/second.yaml"
        try (base + "  mirror: { type: http, url: \"http://127.0.0.1:1\", token: t }\n")
            .write(toFile: second, atomically: true, encoding: .utf8)
        let imported = try CommandRunner.run(["import", export, "--config", second], in: directory)
        #expect(imported.status == 1, "\(imported.stdout)\(imported.stderr)")
        #expect(imported.stdout.contains("NOT caught up: unavailable: http://127.0.0.1:1"), "\(imported.stdout)")
        #expect(!imported.stdout.contains("lacks entries"), "\(imported.stdout)")
        let status = try CommandRunner.run(["status", "--format", "json", "--config", second], in: directory)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stdout)")
        let mirror = try #require((object["sinks"] as? [[String: Any]])?.first { $0["name"] as? String == "mirror" }, "\(status.stdout)")
        #expect(mirror["cursor"] as? Int == Int(head) && (mirror["lacking_ranges"] as? [[Int]]) == [], "\(mirror)")
    }

    /// A sink added after entries were pruned lacks only those of the kinds its routes select: one
    /// whose routes select none of them (a type the export does not hold) lacks nothing, in
    /// `status` (exit 0), its worker's warning and an import's summary. It was said to lack every
    /// entry pruned, and `status` exited 1 for good (no backfill could bring back what it never takes).
    @Test func aSinkWhoseRoutesSelectNothingPrunedLacksNothing() throws {
        let (directory, export, base, head) = try Self.importedAndPruned()
        let second = directory + "/second.yaml"
        try (base + """
              uv: { type: sqlite, path: \(directory)/state/uv.sqlite }
              late: { type: sqlite, path: \(directory)/state/late.sqlite }
            routes:
              - types: ["*"]
                to: [local, late]
              - types: [HKQuantityTypeIdentifierUVExposure]
                to: [uv]
            """).write(toFile: second, atomically: true, encoding: .utf8)
        let status = try CommandRunner.run(["status", "--format", "json", "--config", second], in: directory)
        #expect(status.status == 1, "\(status.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stdout)")
        let sinks = try #require(object["sinks"] as? [[String: Any]])
        #expect(sinks.map { $0["name"] as? String } == ["local", "uv", "late"])
        #expect(sinks[1]["pruned_entries_lacking"] as? Int == 0 && (sinks[1]["lacking_ranges"] as? [[Int]]) == [], "\(sinks[1])")
        #expect((sinks[2]["lacking_ranges"] as? [[Int]]) == [[1, Int(head)]], "\(sinks[2])")

        let third = directory + "/third.yaml"
        try (base + """
              uv: { type: sqlite, path: \(directory)/state/uv.sqlite }
            routes:
              - types: ["*"]
                to: [local]
              - types: [HKQuantityTypeIdentifierUVExposure]
                to: [uv]
            """).write(toFile: third, atomically: true, encoding: .utf8)
        let quiet = try CommandRunner.run(["status", "--config", third], in: directory)
        #expect(quiet.status == 0 && !quiet.stdout.contains("lacks entries"), "\(quiet.stdout)")
        let imported = try CommandRunner.run(["import", export, "--config", third], in: directory)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(!imported.stderr.contains("were pruned (journal.retain) before this sink wrote them"), "\(imported.stderr)")
        #expect(!imported.stdout.contains("lacks entries"), "\(imported.stdout)")
        #expect(try CommandRunner.run(["status", "--config", third], in: directory).status == 0)
    }

    /// A whole migration into a sink that lacks pruned entries forgets them only when its source
    /// was delivered to and lacks none itself, saying which.
    @Test func aMigrationForgetsAGapOnlyFromAStoreThatLacksNothing() throws {
        let (directory, _, config) = try Self.imported(records: 30, others: ["other"])
        do {
            let journal = try Journal(stateDirectory: directory + "/state")
            try journal.notePrunedGap(sink: "local", from: 1, through: 5)
            try journal.notePrunedGap(sink: "other", from: 1, through: 3)
        }
        let kept = try CommandRunner.run(["migrate", "--from", "other", "--to", "local", "--config", config, "--quiet"], in: directory)
        #expect(kept.stdout.contains("the note that 'local' lacks entries 1–5 stays: 'other' may lack them too"),
                "\(kept.stdout)")
        try Journal(stateDirectory: directory + "/state").clearPrunedGaps(sink: "other")
        // A source whose cursor had not reached entries pruned since (every entry is, here): kept too.
        do {
            let journal = try Journal(stateDirectory: directory + "/state")
            _ = try journal.prune(sinks: [], retainSeconds: 0, now: Date().addingTimeInterval(60))
            try journal.setCursor(sink: "other", to: 3, written: 3)
        }
        let behind = try CommandRunner.run(["migrate", "--from", "other", "--to", "local", "--config", config, "--quiet",
                                            "--restart"], in: directory)
        #expect(behind.stdout.contains("the note that 'local' lacks entries 1–5 stays"), "\(behind.stdout)")
        let head = try Journal(stateDirectory: directory + "/state").head()
        try Journal(stateDirectory: directory + "/state").setCursor(sink: "other", to: head, written: Int(head))
        let forgotten = try CommandRunner.run(["migrate", "--from", "other", "--to", "local", "--config", config, "--quiet",
                                               "--restart"], in: directory)
        #expect(forgotten.stdout.contains("the note that 'local' lacks entries 1–5 (pruned before it wrote them) is forgotten: "
                                          + "'other' holds their samples"), "\(forgotten.stdout)")
        #expect(!(try CommandRunner.run(["status", "--config", config], in: directory)).stdout.contains("lacks entries"))
        // From a sink whose routes select less (its cursor passed what they leave out): kept.
        // (The migration above took everything up to the head as brought back, for good: noted as
        // for a replaced store, which forgets that.)
        try Journal(stateDirectory: directory + "/state").notePrunedGap(sink: "local", from: 6, through: 9, storeIsNew: true)
        let narrower = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              other: { type: sqlite, path: \(directory)/state/other.sqlite }
            routes:
              - types: ["*"]
                to: [local]
              - types: [sleep]
                to: [other]
            """, in: directory)
        let sleepOnly = try CommandRunner.run(["migrate", "--from", "other", "--to", "local", "--config", narrower, "--quiet",
                                               "--restart"], in: directory)
        #expect(sleepOnly.stdout.contains("the note that 'local' lacks entries 6–9 stays") && sleepOnly.stdout.contains(
            "its routes select less than those of 'local'"), "\(sleepOnly.stdout)")
    }
}
