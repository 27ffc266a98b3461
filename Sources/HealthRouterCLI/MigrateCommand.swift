import Foundation
import HealthRouterCore

/// `healthrouter migrate --from SINK --to SINK`: copies one store into another, resumably, and verifies.
enum MigrateCommand {
    static let help = """
        usage: healthrouter migrate --from SINK --to SINK [--verify | --verify-only] [--since DATE]
                                    [--until DATE] [--types T,…] [--batch-size N] [--restart]

        Streams every row of one configured sink, as canonical samples, into another: ids,
        instants with their original offsets, units, metadata, workouts with their events,
        statistics, activities and routes. Tombstones the source recorded go first.

          --from SINK     the store to read: sqlite, ndjson, postgres or timescaledb (read as it is
                          when healthrouter may not write it: a read-only file, a SELECT-only role)
          --to SINK       the store to write: any sink of the config
          --verify        afterwards, read both back and compare, per type, a count and a
                          content checksum; prints a table, exits 65 on any difference
          --verify-only   compare only, without migrating (after a migration, or to check two
                          stores that were filled separately)
          --batch-size N  samples per write (default 5000, at most 1000000: a batch is held in memory)
          --restart       start over instead of resuming an interrupted migration
        \(FilterOptions.help)

        The journal is not involved: no sink's cursor moves (the target keeps its own), so a target
        that is also routed from the journal goes on receiving new samples as before. Stopped
        half-way (Ctrl-C, kill -9), the same command resumes after the last batch the target
        acknowledged (<state_directory>/runs/migrate-FROM-to-TO.cursor), or starts over, saying so,
        when the --from store gained or lost rows before that point since; writes are idempotent,
        so running a finished migration again changes nothing. A --from database whose connection
        is lost mid-read is opened again and read on from where the target acknowledged, tried
        five times as a write is; so is either store --verify reads, read on after the last item
        it counted (one whose rows before that item changed meanwhile stops it, exit 1). A --from
        sqlite file copied over mid-read (cp backup.sqlite FILE) is opened again and read on the
        same way, not taken for a damaged one.
        A store whose schema cannot hold every field (postgres' healthkit_metrics) gives back what
        it holds: --verify shows which types differ.

        exit codes: 0 done (and equal, with --verify), 1 the target or the source failed five
                    times in a row (run again to resume), or a store --verify read changed,
                    64 wrong options, an unknown sink, or a --from sink that cannot be read back,
                    65 the data differ: --verify found differences, or the target refused samples,
                    or a store read holds a row it cannot read (edited by hand) or is damaged,
                    66 the --from store (an sqlite file, an ndjson folder) does not exist (with
                    --verify-only, the --to store too), 73 a sink cannot be opened (five tries,
                    0.5 s to 4 s apart), 78 the config or a sink is wrong (misconfigured)

        examples:
          healthrouter migrate --from local --to tsdb --verify
          healthrouter migrate --from lake --to supa --types sleep,workouts
        """

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "migrate")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        guard arguments.positional.isEmpty else {
            throw UsageError("migrate names its sinks with --from and --to, not '\(arguments.positional[0])'", command: "migrate")
        }
        guard let from = arguments.values["--from"], let to = arguments.values["--to"] else {
            throw UsageError("name both sinks: healthrouter migrate --from SINK --to SINK", command: "migrate")
        }
        guard from != to else { throw UsageError("--from and --to name the same sink '\(from)'", command: "migrate") }
        if arguments.flags.contains("--verify"), arguments.flags.contains("--verify-only") {
            throw UsageError("--verify migrates, then compares; --verify-only compares without migrating: give one of them",
                             command: "migrate")
        }
        let filter = try FilterOptions.filter(arguments, command: "migrate")
        let batchSize = try BackfillCommand.batchSizeOption(arguments, command: "migrate")
        let loaded = try LoadedConfig.load(arguments, environment: environment, usesSources: false, usesSinks: [from, to])
        // Both names, and the source's store, are checked before anything is created.
        _ = try ConfiguredSink.spec(to, loaded: loaded)
        if let store = Self.store(from, loaded: loaded), store.key == Self.store(to, loaded: loaded)?.key {
            throw UsageError("--from '\(from)' and --to '\(to)' are one store (\(store.shown)): a migration would read what it writes",
                             command: "migrate")
        }
        let source = try ConfiguredSink.open(from, loaded: loaded, command: "migrate", existingStoreOnly: true,
                                             readableFor: "migrated from", readOnly: true)
        defer { source.sink.close() }
        let reader = try source.readable(for: "migrated from")
        let verifyOnly = arguments.flags.contains("--verify-only")
        // A migration keeps its place there; a comparison only reads the two stores.
        if !verifyOnly { try loaded.ensureStateDirectory() }
        // With --verify, a target that cannot be read back is refused here, before anything is written.
        let target = try ConfiguredSink.open(to, loaded: loaded, command: "migrate", existingStoreOnly: verifyOnly,
                                             readableFor: arguments.flags.contains("--verify") || verifyOnly ? "verified" : nil,
                                             readOnly: verifyOnly)
        defer { target.sink.close() }
        if verifyOnly { return try verify(reader, from: from, target, to: to, filter: filter, rejected: 0,
                                         notices: NoticeOutput(format: loaded.logger.format)) }

        let cursor = ResumeCursor(stateDirectory: loaded.config.stateDirectory, name: "migrate-\(from)-to-\(to)")
        let run = FilterOptions.describe(filter)
        var resume: (position: Int64, digest: Int64?) = (0, nil)
        let notices = NoticeOutput(format: loaded.logger.format)
        // A daemon or an import on this state directory may write either store while it is copied:
        // what it writes to the source after the copy passed it is not in the target (a migration
        // beside an import copied 388,310 of 1,000,067 samples, and said nothing).
        if !arguments.flags.contains("--verify") {
            let writers = [DaemonLock.holder(of: loaded.config.stateDirectory).map { "a healthrouter run (pid \($0))" },
                           ImportLock.holder(of: loaded.config.stateDirectory).map { "a healthrouter import (pid \($0))" }]
            for writer in writers.compactMap({ $0 }) {
                notices.write("warning: \(writer) uses this state directory and may write '\(from)' or '\(to)' during the "
                                  + "migration: let it finish or stop it first, or add --verify to compare both stores after",
                              level: .warning)
            }
        }
        if !arguments.flags.contains("--restart"), let saved = try cursor.load() {
            if target.sink.createdItsStore {
                // Deleted or dropped since: what the interrupted run wrote is gone with it.
                notices.write("note: '\(to)' was created anew since the interrupted migration \(from) → \(to): starting over")
            } else if saved.run == run {
                resume = (saved.position, saved.digest)
                notices.write("resuming the migration \(from) → \(to) after \(NumberText.grouped(saved.position)) items")
            } else {
                notices.write("note: an earlier migration \(from) → \(to)\(saved.run.isEmpty ? "" : " (\(saved.run))") did not "
                                  + "finish; starting over")
            }
        }
        // A store that counts its items cheaply (sqlite) gives the line its total; others only what was written.
        let quiet = arguments.flags.contains("--quiet")
        let total = ProgressLine.isDrawn(quiet: quiet, format: notices.format) ? ((try? reader.itemCount()) ?? nil) : nil
        let progress = DeliveryProgress(label: "migrating \(from) → \(to)", quiet: quiet, span: total.map {
            DeliveryProgress.Span(before: 0, last: $0, resumedAfter: resume.position, noun: "items")
        }, notices: notices)
        let sinkCursor = try target.cursorToKeep(stateDirectory: loaded.config.stateDirectory)
        var current: DirectDelivery?
        /// Reads the source into the target, passing over the first `resumeAfter` items, which an
        /// interrupted run delivered: the source is read in a stable order, but rows added or
        /// deleted before that position since shift it, so the ids read up to it must hash to
        /// `expected` (`ReadOrderDigest`), else `SourceChanged`. A source whose connection is lost
        /// mid-read is opened again and read again from where the target acknowledged
        /// (`SourceRead`): five tries, 0.5 s to 4 s apart, counted afresh once a batch gets through.
        func copy(resumeAfter: Int64, expected: Int64?) throws -> DirectDelivery {
            let read = SourceRead(reader, sink: from, onRetry: progress.retryReporter(sink: from))
            // The position the target acknowledged last, and the digest of the ids read up to it.
            var acknowledged = (position: resumeAfter, digest: expected)
            let delivery = DirectDelivery(sink: target.sink, sinkCursor: sinkCursor, filter: filter,
                                          resumeAfter: resumeAfter, batchSize: batchSize) { position, counts in
                try cursor.save(position, run: run, digest: read.order.value)
                acknowledged = (position, read.order.value)
                progress.update(counts)
            }
            delivery.onRetry = progress.retryReporter(sink: to)
            current = delivery
            read.onReopen = { [weak delivery] in delivery?.rewind() }
            try read.read(resumePoint: { acknowledged }) { position, item in
                try delivery.accept(JournalEntry(sequence: position, source: from, item: item, isFromJournal: false))
            }
            try delivery.finish()
            return delivery
        }
        let started = Date()
        let delivery: DirectDelivery
        do {
            do {
                delivery = try copy(resumeAfter: resume.position, expected: resume.digest)
            } catch is SourceChanged {
                progress.stop()
                progress.span?.resumedAfter = 0
                notices.write("note: \(from) changed since the interrupted migration (rows added or deleted before where it "
                                  + "stopped): starting over (writes are idempotent: what it delivered is not doubled)")
                delivery = try copy(resumeAfter: 0, expected: nil)
            }
        } catch {
            return try DirectDeliveryStop.exitCode(after: error, run: "the migration \(from) → \(to)", sink: "a sink",
                                                   fix: "fix it",
                                                   resumeAfter: current?.counts.position ?? resume.position, noun: "items",
                                                   progress: progress, format: loaded.logger.format)
        }
        progress.stop()
        cursor.remove()
        let counts = delivery.counts
        // Migrated whole from a store that lacks nothing, the target holds what entries pruned before
        // it wrote them had (`status` stops listing them); the journal is only asked when there is one.
        let journalPath = (loaded.config.stateDirectory as NSString).appendingPathComponent("journal.sqlite")
        var gapNote: String?
        if counts.rejected == 0, FilterOptions.describe(filter).isEmpty, FileManager.default.fileExists(atPath: journalPath),
           let journal = try? Journal(stateDirectory: loaded.config.stateDirectory),
           // Also the entries pruned that the target's worker has not met yet (`status` shows them).
           let gaps = try? journal.lackingRanges(sink: to, cursor: ((try? journal.cursor(sink: to)) ?? nil) ?? 0,
                                                routes: loaded.routes), !gaps.isEmpty {
            let ranges = Journal.describe(gaps)
            // A source this journal delivered to up to its oldest retained entry (it passed every
            // entry pruned since), with no gap of its own, whose routes select all the target's
            // do, holds them. (A cursor also passes the entries its routes leave out.)
            let firstRetained = ((try? journal.oldestRetained()) ?? nil) ?? (((try? journal.head()) ?? 0) + 1)
            let fromCursor = (try? journal.cursor(sink: from)) ?? nil
            if (try? journal.prunedGaps(sink: from))?.isEmpty ?? false, let fromCursor, fromCursor + 1 >= firstRetained,
               loaded.routes.selectsEverything(from, of: to) {
                try? journal.clearPrunedGaps(sink: to, filledThrough: firstRetained - 1)
                gapNote = "the note that '\(to)' lacks entries \(ranges) (pruned before it wrote them) is forgotten: "
                    + "'\(from)' holds their samples"
            } else {
                gapNote = "the note that '\(to)' lacks entries \(ranges) stays: '\(from)' may lack them too (it lacks "
                    + "pruned entries, was never delivered to, had not reached them when they were pruned, or its routes "
                    + "select less than those of '\(to)')"
            }
        }
        let seconds = Date().timeIntervalSince(started)
        let rate = seconds > 0 ? Int(Double(counts.samples) / seconds) : 0
        print("migrated \(from) (\(source.type)) → \(to) (\(target.type))\(run.isEmpty ? "" : " (\(run))"):"
              + " \(NumberText.counted(counts.samples, "sample")) and \(NumberText.counted(counts.tombstones, "tombstone")) delivered"
              + " in \(NumberText.duration(seconds)) (\(NumberText.grouped(rate)) samples/s)")
        print("  \(DirectDeliveryText.keptAsTheyAre)")
        if let note = DirectDeliveryText.rowsPerSample(sinkType: target.type) { print("  \(note)") }
        if counts.resumed > 0 { print("  \(NumberText.grouped(counts.resumed)) items delivered by the interrupted run before") }
        if let gapNote { print("  \(gapNote)") }
        let verifies = arguments.flags.contains("--verify")
        if counts.rejected > 0 {
            // Without --verify this line ends the command: with --log-format json it carries the exit code.
            ErrorOutput(format: loaded.logger.format).write(
                "'\(to)' refused \(counts.rejected) samples: \(counts.rejectionReasons.joined(separator: "; "))"
                    + "\n  hint: \(DirectDeliveryText.refusedHint(to))",
                exitCode: verifies ? nil : .dataError)
        }
        guard verifies else { return counts.rejected > 0 ? .dataError : .success }
        return try verify(reader, from: from, target, to: to, filter: filter, rejected: counts.rejected, notices: notices)
    }

    /// What tells two sinks' stores apart (`key`): the type, and the file or folder (resolved, links
    /// followed) or the database url and schema. Two names for one store are one store;
    /// `shown` names it without secrets (a database by its schema, not its url).
    static func store(_ name: String, loaded: LoadedConfig) -> (key: String, shown: String)? {
        guard let plugin = loaded.config.sinks.first(where: { $0.name == name }) else { return nil }
        func file(_ key: String) -> (String, String)? {
            guard let text = plugin.options[key]?.scalar else { return nil }
            let path = ConfigPath.resolve(text, homeDirectory: loaded.homeDirectory)
            let real = realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? (path as NSString).standardizingPath
            return ("\(plugin.type) \(real)", real)
        }
        switch plugin.type {
        case "sqlite": return file("path")
        case "ndjson": return file("directory")
        case "postgres", "timescaledb":
            guard let url = plugin.options["url"]?.scalar else { return nil }
            let schema = plugin.options["schema"]?.scalar ?? "public"
            return ("\(plugin.type) \(url) \(schema)", "one database url, schema \(schema)")
        default: return nil
        }
    }

    /// Reads both sides back, prints the table, and returns the exit code. A side whose connection
    /// is lost mid-read is opened again and read on after the last item counted (`SourceRead`).
    static func verify(_ reader: any ReadableSink, from: String, _ target: ConfiguredSink, to: String,
                       filter: SampleFilter, rejected: Int, notices: NoticeOutput) throws -> ExitCode {
        let verifyStarted = Date()
        // Both sides at once: each sink is read on one thread only, as the Sink contract asks.
        let sourceSide = VerifySide(reader)
        let done = DispatchSemaphore(value: 0)
        let reading = Thread {
            sourceSide.result = Result { try checksums(sourceSide.sink, name: from, filter: filter, notices: notices) }
            done.signal()
        }
        reading.start()
        let targetResult = Result {
            try checksums(try target.readable(for: "verified"), name: to, filter: filter, notices: notices)
        }
        done.wait()
        let sourceSums = try sourceSide.result!.get()
        let targetSums = try targetResult.get()
        let (table, differences) = VerifyTable.render(from: (from, sourceSums), to: (to, targetSums))
        print(table)
        print(differences == 0
              ? "verified: every type has the same count and checksum on both sides (\(NumberText.duration(Date().timeIntervalSince(verifyStarted))))"
              : "verify: \(differences) type(s) differ between \(from) and \(to)")
        return differences == 0 && rejected == 0 ? .success : .dataError
    }

    /// One side of a verify, read on its own thread and handed back after it finished.
    final class VerifySide: @unchecked Sendable {
        let sink: any ReadableSink
        var result: Result<SampleChecksum, any Error>?
        init(_ sink: any ReadableSink) { self.sink = sink }
    }

    /// The per-type counts and checksums of what sink `name` holds (as `filter` narrows it). A
    /// connection lost mid-read is opened again and the store read on after the last item
    /// counted, so none is counted twice; one whose rows before that item changed meanwhile
    /// stops the comparison (exit 1).
    static func checksums(_ sink: any ReadableSink, name: String, filter: SampleFilter,
                          notices: NoticeOutput) throws -> SampleChecksum {
        var sums = SampleChecksum()
        let read = SourceRead(sink, sink: name, onRetry: DeliveryProgress.retryReporter(sink: name, notices: notices))
        var counted: (position: Int64, digest: Int64?) = (0, nil)
        do {
            try read.read(resumePoint: { counted }) { position, item in
                guard position > counted.position else { return }
                if filter.selects(item) { sums.add(item) }
                counted = (position, read.order.value)
            }
        } catch is SourceChanged {
            throw CommandFailure(message: "sink '\(name)' changed while it was read for the comparison (rows added or deleted "
                                     + "before where its lost connection stopped the read)",
                                 hint: "compare again (migrate --verify-only) once nothing writes it", code: .incomplete)
        }
        return sums
    }
}

/// A running hash of the ids a read-back gave, in its order (`ContentHash`), so that a resumed
/// migration can tell whether the items before its position are still the same ones.
final class ReadOrderDigest {
    private(set) var value = ContentHash.empty

    func add(_ item: HealthItem) {
        switch item {
        case .sample(let sample): value = ContentHash.continuing(value, over: sample.id.utf8)
        case .tombstone(let tombstone):
            for id in tombstone.ids { value = ContentHash.continuing(value, over: id.utf8 + [UInt8(ascii: ",")]) }
        }
        value = ContentHash.continuing(value, over: CollectionOfOne(UInt8(ascii: "\n")))
    }
}
