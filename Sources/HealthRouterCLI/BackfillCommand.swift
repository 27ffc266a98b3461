import Foundation
import HealthRouterCore

/// `healthrouter backfill SINK`: re-delivers to one sink only, from the journal or a file.
enum BackfillCommand {
    /// How the summary counts a journal entry that cannot be read (damaged on disk).
    static let damagedReason = "journal entry that cannot be read (damaged on disk): left out, still a dead letter"

    static let help = """
        usage: healthrouter backfill SINK [--since DATE] [--until DATE] [--types T,…] [--from PATH]
                                          [--batch-size N] [--restart]

        Writes again, to the sink called SINK only, what it should hold: every retained journal
        entry its routes select (or, with --from, every sample of a file). Use it after adding a
        sink, after emptying or restoring a store, or to repair a range of days.

          SINK            a sink of the config
          --from PATH     read PATH instead of the journal: an Apple Health export.zip/export.xml
                          or NDJSON (a file or folder, as `dump` and the ndjson sink write), or
                          Health Auto Export's JSON files (a file or folder), found by content;
                          every sample of it is written (narrow with --types), whatever the
                          routes say, under the ids `import PATH` gives (records one fingerprint
                          cannot tell apart included; the user_id of the config's source of its
                          type; a reading the journal holds under another id, a push's, under
                          that id, as the journal holds it), and nothing goes into the journal
          --batch-size N  entries per write (default 5000, at most 1000000: a batch is held in memory)
          --restart       start over instead of resuming an interrupted backfill
        \(FilterOptions.help)

        Nothing else moves: the other sinks' rows and cursors, and SINK's own cursor, stay as they
        are (the sink's writes are idempotent, so rows it already has are written as they are).
        Stopped half-way (Ctrl-C, kill -9), the same command resumes after the last batch the
        sink acknowledged (kept in <state_directory>/runs/backfill-SINK.cursor).
        The journal keeps entries for journal.retain: to backfill older history, use --from with
        the export, or migrate from another sink (healthrouter migrate --help).

        exit codes: 0 done, 1 the sink failed (run again to resume), 64 wrong options or unknown
                    sink, 65 the file is not usable or the sink refused entries, 66 no journal (or
                    an empty one), or the --from file is missing, 73 the journal or the sink cannot
                    be opened (five tries, 0.5 s to 4 s apart), 78 the config or the sink is wrong
                    (misconfigured)

        examples:
          healthrouter backfill lake
          healthrouter backfill tsdb --types sleep,workouts --since 2024-01-01
          healthrouter backfill supa --from ~/Downloads/export.zip
        """

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "backfill")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        guard arguments.positional.count == 1 else {
            throw UsageError(arguments.positional.isEmpty ? "name the sink to backfill, e.g. healthrouter backfill lake"
                                                          : "backfill takes one sink, not \(arguments.positional.count)",
                             command: "backfill")
        }
        let name = arguments.positional[0]
        let filter = try FilterOptions.filter(arguments, command: "backfill")
        let batchSize = try batchSizeOption(arguments, command: "backfill")
        let loaded = try LoadedConfig.load(arguments, environment: environment, usesSources: false, usesSinks: [name])
        // The sink's name first: a wrong name is the mistake to report, whatever else is missing.
        _ = try ConfiguredSink.spec(name, loaded: loaded)
        let state = loaded.config.stateDirectory
        let path = arguments.values["--from"]
        // The file is looked at before the sink is opened (which may create its schema).
        // As `import PATH` reads it (the config's source of its type gives its user_id), so the ids are the import's.
        let fileSources = try path.map {
            try ImportCommand.commandLineSources($0, config: loaded.config, loaded: loaded, command: "backfill").map(\.source)
        } ?? []
        // The journal is what a backfill without --from reads; with --from, it says what was deleted since.
        let absence = JournalFile.absence(in: state, origin: loaded.origin, otherwise: "import something, or backfill from a "
                                              + "file with --from PATH")
        if path == nil, let absence { throw absence }
        let hasJournal = absence == nil
        // The backfill keeps its place there: a state directory it may not write is said so before anything opens.
        if hasJournal { try loaded.ensureStateDirectory() }
        let journal = hasJournal ? try JournalOpenHint.open(state, role: .reader) : nil
        // Made only now: a backfill refused above leaves no empty state directory behind.
        try loaded.ensureStateDirectory()
        let opened = try ConfiguredSink.open(name, loaded: loaded, command: "backfill")
        defer { opened.sink.close() }

        let cursor = ResumeCursor(stateDirectory: state, name: "backfill-\(name)")
        let run = "from=\(path ?? "journal") \(FilterOptions.describe(filter))"
        var resumeAfter: Int64 = 0
        let notices = NoticeOutput(format: loaded.logger.format)
        if !arguments.flags.contains("--restart"), let saved = try cursor.load() {
            if opened.sink.createdItsStore {
                // Deleted or dropped since: what the interrupted run wrote is gone with it.
                notices.write("note: '\(name)' was created anew since the interrupted backfill: starting over")
            } else if saved.run == run {
                resumeAfter = saved.position
                notices.write("resuming the backfill of '\(name)' after position \(NumberText.grouped(saved.position))")
            } else {
                notices.write("note: an earlier backfill of '\(name)'\(saved.run.isEmpty ? "" : " (\(saved.run))") did not finish; "
                                  + "starting this one over")
            }
        }
        // From the journal, what it goes through is known: the entries it retains, up to its head.
        var span: DeliveryProgress.Span?
        if path == nil, let journal {
            let head = try journal.head()
            span = DeliveryProgress.Span(before: (try journal.oldestRetained() ?? head + 1) - 1, last: head,
                                         resumedAfter: resumeAfter, noun: "entries")
        }
        let progress = DeliveryProgress(label: "backfilling \(name)", quiet: arguments.flags.contains("--quiet"), span: span,
                                        notices: notices)
        if span != nil, let journal { progress.currentLast = { try? journal.head() } }
        let delivery = DirectDelivery(sink: opened.sink, sinkCursor: try opened.cursorToKeep(stateDirectory: state), filter: filter,
                                      resumeAfter: resumeAfter, batchSize: batchSize) { position, counts in
            try cursor.save(position, run: run)
            progress.update(counts)
        }
        delivery.onRetry = progress.retryReporter(sink: name)
        let started = Date()
        var skippedLines: [String: Int] = [:]
        var examples: [String: String] = [:]
        var unrouted = 0
        // From a file: samples written under the id the journal holds their reading by.
        var underJournalIds = 0
        // The sink's dead letters this run wrote again (cleared once it ends with none refused), and
        // those of entries deleted since or no longer routed to it.
        var redelivered: [Int64] = []
        var moot: [Int64] = []
        do {
            if path == nil, let journal {
                let retention = try journal.retention()
                if retention.pruned, let oldest = retention.oldest {
                    notices.write("note: journal entries before \(NumberText.grouped(oldest)) were pruned (journal.retain); "
                                  + "backfill older history with --from PATH or healthrouter migrate")
                }
                let selects = opened.spec.selects
                let checksDeletions = try journal.hasDeletedIds()
                let deadLetters = Set(try journal.deadLetters(sink: name).map(\.sequence))
                try journal.forEachEntry(after: resumeAfter, filter: filter, batchSize: batchSize, damaged: { _ in
                    // Damaged on disk: it stays the sink's dead letter; the entries after it are written.
                    skippedLines[Self.damagedReason, default: 0] += 1
                }) { entry in
                    guard selects(entry.item.sampleTypeName, entry.source) else {
                        unrouted += 1
                        // No longer this sink's to write: its dead letter is moot.
                        if deadLetters.contains(entry.sequence), filter.selects(entry.item) { moot.append(entry.sequence) }
                        return
                    }
                    // A sample a later tombstone deletes is not written back until the tombstone
                    // comes (a kill between the two would leave it in the store): it is left out,
                    // and a dead letter of it is moot.
                    if checksDeletions, case .sample(let sample) = entry.item,
                       try journal.isDeleted(sample.id, after: entry.sequence) {
                        skippedLines[DirectDeliveryOutput.deletedReason, default: 0] += 1
                        if deadLetters.contains(entry.sequence), filter.selects(entry.item) { moot.append(entry.sequence) }
                        return
                    }
                    if try delivery.accept(entry), deadLetters.contains(entry.sequence) { redelivered.append(entry.sequence) }
                }
            } else {
                // One after the other (a folder's .ndjson files, then its Health Auto Export files),
                // numbered on from where the one before ended, so that a resumed run counts alike.
                var position: Int64 = 0
                for source in fileSources {
                    let output = DirectDeliveryOutput(delivery: delivery, sourceName: "backfill", journal: journal,
                                                      keepsTwinsApart: source.keepsTwinsApart, startingAfter: position)
                    do {
                        try source.read(into: output)
                    } catch let error as SourceError {
                        progress.stop()
                        throw ImportCommand.commandFailure(error)
                    }
                    // Its last batch written first: the output counts what it leaves out then too.
                    try delivery.finish()
                    position = output.position
                    underJournalIds += output.underJournalIds
                    skippedLines.merge(output.skipped, uniquingKeysWith: +)
                    examples.merge(output.skippedExamples) { first, _ in first }
                }
            }
            try delivery.finish()
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            return try DirectDeliveryStop.exitCode(after: error, run: "the backfill of '\(name)'", sink: "the sink",
                                                   fix: "fix sinks.\(name) or its store",
                                                   resumeAfter: delivery.counts.position,
                                                   progress: progress, format: loaded.logger.format)
        }
        progress.stop()
        cursor.remove()
        let counts = delivery.counts
        // None refused: the dead letters it wrote again are written. From a file, the entries
        // pruned before the sink wrote them are taken to be back (a narrowed run is not).
        var gapNote: String?
        var prunedLetters = 0
        if counts.rejected == 0, let journal {
            try journal.clearDeadLetters(sink: name, sequences: redelivered + moot)
            // From a file, not narrowed: the dead letters of entries pruned since are taken to be
            // written by it, as the entries a gap lacks are.
            let gaps = try journal.prunedSelected(try journal.prunedGaps(sink: name)) { type, source in
                loaded.routes.selects(sink: name, type: type, source: source)
            }
            let whole = path != nil && FilterOptions.describe(filter).isEmpty
            if whole {
                prunedLetters = try journal.clearPrunedDeadLetters(sink: name)
                // The file holds what was pruned before the sink wrote it, a gap noted or not (a
                // sink backfilled before its worker first ran has none noted yet).
                try journal.clearPrunedGaps(sink: name, filledThrough: (try journal.oldestRetained() ?? journal.head() + 1) - 1)
            }
            if path != nil, !gaps.isEmpty {
                let ranges = Journal.describe(gaps)
                gapNote = whole
                    ? "the note that '\(name)' lacks entries \(ranges) (pruned before it wrote them) is forgotten: "
                        + "this file is taken to hold their samples"
                    : "the note that '\(name)' lacks entries \(ranges) stays (a narrowed backfill): status goes on "
                        + "listing it until a backfill --from without --since, --until or --types"
            }
        }
        let narrowed = FilterOptions.describe(filter)
        print("backfill of '\(name)' (\(opened.type)) from \(path ?? "the journal")\(narrowed.isEmpty ? "" : " (\(narrowed))"):"
              + " \(NumberText.counted(counts.samples, "sample")) and \(NumberText.counted(counts.tombstones, "tombstone")) delivered"
              + " in \(NumberText.duration(Date().timeIntervalSince(started)))")
        print("  \(DirectDeliveryText.keptAsTheyAre)")
        if let note = DirectDeliveryText.rowsPerSample(sinkType: opened.type) { print("  \(note)") }
        if counts.resumed > 0 { print("  \(NumberText.grouped(counts.resumed)) delivered by the interrupted run before") }
        for line in DirectDeliveryText.samplesByType(counts.samplesByType) { print("  \(line)") }
        if underJournalIds > 0 {
            print("  \(NumberText.grouped(underJournalIds)) of them under the id the journal holds the same reading by "
                  + "(a push's, or another file's), as the journal holds it: one row of each reading, as after `import`")
        }
        for (reason, count) in skippedLines.sorted(by: { $0.key < $1.key }) {
            print("  skipped \(NumberText.grouped(count)): \(reason)\(examples[reason].map { " (first at \($0))" } ?? "")")
        }
        if unrouted > 0 {
            print("  passed over \(NumberText.counted(unrouted, "sample")) the routes do not send to '\(name)' (the config's "
                  + "routes decide what a sink receives, a backfill too)")
        }
        if counts.rejected == 0, !redelivered.isEmpty {
            print("  \(NumberText.counted(redelivered.count, "dead letter")) of '\(name)' written now: no longer listed")
        }
        if counts.rejected == 0, !moot.isEmpty {
            print("  \(NumberText.counted(moot.count, "dead letter")) of '\(name)' of samples deleted since or no longer "
                  + "routed to it: no longer listed")
        }
        if let gapNote { print("  \(gapNote)") }
        if prunedLetters > 0 {
            print("  \(NumberText.counted(prunedLetters, "dead letter")) of '\(name)' whose entries were pruned: no longer "
                  + "listed (this file is taken to hold their samples)")
        }
        print("  other sinks and cursors untouched")
        if counts.rejected > 0 {
            ErrorOutput(format: loaded.logger.format).write(
                "'\(name)' refused \(counts.rejected) entries: \(counts.rejectionReasons.joined(separator: "; "))"
                    + "\n  hint: \(DirectDeliveryText.refusedHint(name))", exitCode: .dataError)
            return .dataError
        }
        return .success
    }

    /// The largest `--batch-size`: a batch is held whole in memory (and written in one transaction)
    /// until the sink acknowledges it, a few hundred bytes an entry.
    static let largestBatchSize = 1_000_000

    static func batchSizeOption(_ arguments: CommandLineArguments, command: String) throws -> Int {
        guard let text = arguments.values["--batch-size"] else { return 5_000 }
        guard let size = Int(text), size > 0 else {
            throw UsageError("--batch-size takes a positive number, not '\(text)'", command: command)
        }
        guard size <= largestBatchSize else {
            throw UsageError("--batch-size takes at most \(NumberText.grouped(largestBatchSize)) entries, not \(text) (a batch is "
                                 + "held in memory until the sink acknowledges it)", command: command)
        }
        return size
    }
}

extension HealthItem {
    /// The type of a sample, nil for a tombstone.
    var sampleTypeName: String? {
        if case .sample(let s) = self { return s.type }
        return nil
    }
}
