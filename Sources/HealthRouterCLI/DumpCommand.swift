import Foundation
import HealthRouterCore

/// `healthrouter dump`: writes the journal's entries, or a sink's rows, as NDJSON.
enum DumpCommand {
    static let help = """
        usage: healthrouter dump [--since DATE] [--until DATE] [--types T,…] [--from SINK] [--output FILE]

        Writes samples and tombstones as NDJSON, one JSON object a line, in the ndjson sink's
        line format (Pulso's fields plus healthrouter's, see Plugins/NDJSONSink/README.md):
        a `replay` source (healthrouter import FILE) reads it back into the very same samples.

          --from SINK     read the rows of that configured sink (sqlite, ndjson, postgres,
                          timescaledb) instead of the journal; a store healthrouter may not write
                          (a read-only file or folder, a role granted SELECT only) is read as it is
          --output FILE   write to FILE (replaced when the dump is complete, keeping its
                          permissions; a named pipe or device is written into; a folder is
                          refused) instead of standard output
        \(FilterOptions.help)

        The journal holds what was imported within journal.retain (older entries are pruned once
        every sink has them): to dump everything, dump a sink. Journal entries come in order, every
        version of a changed sample included (a replay keeps the last); a sink's rows come
        tombstones first, then one line per stored sample.

        A --from database whose connection is lost mid-read is opened again and read on after the
        last line written, tried five times as a write is (0.5 s to 4 s apart); rows added or deleted
        before that line meanwhile stop the dump (exit 1) instead of a line written twice or left out.
        A --from sqlite file copied over mid-read (cp backup.sqlite FILE) is opened again and read on
        the same way, not taken for a damaged one.
        A --from store that holds a row healthrouter cannot read (edited by hand) or a damaged page
        stops it at once (exit 65), naming the row and what to do.

        exit codes: 0 done, 1 reading stopped on an error (or the --from store changed), 64 wrong
                    options (a folder as --output), an unknown sink or one that cannot be read back,
                    65 the --from store holds a row it cannot read, or is damaged, 66 no journal
                    (or an empty one), or the sink's store (file, folder, or a database's table)
                    does not exist, 73 the output, the journal or the sink cannot be opened (five
                    tries, 0.5 s to 4 s apart), 78 the config or the sink is wrong (misconfigured)

        examples:
          healthrouter dump --types sleep --since 2024-01-01 > sleep.ndjson
          healthrouter dump --from local --output everything.ndjson
          healthrouter import everything.ndjson --config other.yaml
        """

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "dump")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        guard arguments.positional.isEmpty else {
            throw UsageError("dump takes no file (did you mean --output \(arguments.positional[0])?)", command: "dump")
        }
        let filter = try FilterOptions.filter(arguments, command: "dump")
        try DumpOutput.refuseFolder(arguments.values["--output"])
        let loaded = try LoadedConfig.load(arguments, environment: environment, usesSources: false,
                                           usesSinks: arguments.values["--from"].map { [$0] } ?? [])
        // Each sink's own keys too (no I/O): a misspelt one is the config error `check` reports.
        _ = try loaded.sinkSpecs()
        // What to read is opened before the output is created: a missing input leaves no file behind.
        let opened = try arguments.values["--from"].map {
            try ConfiguredSink.open($0, loaded: loaded, command: "dump", existingStoreOnly: true, readableFor: "dumped",
                                 readOnly: true)
        }
        defer { opened?.sink.close() }
        let reader = try opened?.readable(for: "dumped")
        if opened == nil, let absence = JournalFile.absence(in: loaded.config.stateDirectory, origin: loaded.origin,
                                                            otherwise: "import something, or dump a sink with --from SINK") {
            throw absence
        }
        let output = try DumpOutput(path: arguments.values["--output"])
        let notices = NoticeOutput(format: loaded.logger.format)
        var samples = 0, tombstones = 0
        var line: [UInt8] = []
        line.reserveCapacity(1 << 20)
        var scratch = JSONWriter(capacity: 4096)
        let started = Date()
        let write = { (item: HealthItem) throws in
            guard filter.selects(item) else { return }
            if case .sample = item { samples += 1 } else { tombstones += 1 }
            PulsoJSONEncoder.appendLine(item, to: &line, scratch: &scratch)
            if line.count >= 1 << 20 {
                try output.write(line)
                line.removeAll(keepingCapacity: true)
            }
        }
        var origin: String
        if let opened, let reader {
            // A connection lost mid-read is opened again and the store read on after the last
            // item this dump took: none is written twice or left out.
            let read = SourceRead(reader, sink: opened.name, onRetry: DeliveryProgress.retryReporter(sink: opened.name, notices: notices))
            var taken: (position: Int64, digest: Int64?) = (0, nil)
            do {
                try read.read(resumePoint: { taken }) { position, item in
                    guard position > taken.position else { return }
                    try write(item)
                    taken = (position, read.order.value)
                }
            } catch is SourceChanged {
                // What was taken is whole lines, and stands: standard output gets them all.
                if arguments.values["--output"] == nil { try? output.write(line) }
                throw CommandFailure(
                    message: "sink '\(opened.name)' changed while it was dumped (rows added or deleted before where its lost "
                        + "connection stopped the read): the dump cannot go on from there without writing a line twice or "
                        + "leaving one out, and stopped after \(NumberText.counted(samples, "sample")) and "
                        + "\(NumberText.counted(tombstones, "tombstone"))",
                    hint: arguments.values["--output"] == nil ? "what standard output got is incomplete: dump again"
                        : "nothing was put in place: dump again", code: .incomplete)
            }
            origin = "sink '\(opened.name)' (\(opened.type))"
        } else {
            let journal = try JournalOpenHint.open(loaded.config.stateDirectory, role: .inspector)
            let retention = try journal.retention()
            if retention.pruned, let oldest = retention.oldest {
                notices.write("healthrouter: note: journal entries before \(NumberText.grouped(oldest)) were pruned (journal.retain); "
                                  + "dump a sink with --from SINK for everything")
            }
            try journal.forEachEntry(filter: filter, damaged: { damaged in
                // The rest is dumped: a damaged entry is one sample the dump lacks, said as such.
                notices.write("healthrouter: warning: \(damaged): left out of the dump", level: .warning)
            }) { try write($0.item) }
            origin = "the journal"
        }
        try output.write(line)
        try output.close()
        let destination = arguments.values["--output"] ?? "standard output"
        let narrowed = FilterOptions.describe(filter)
        notices.write("dumped \(NumberText.counted(samples, "sample")) and \(NumberText.counted(tombstones, "tombstone"))"
                      + " from \(origin)\(narrowed.isEmpty ? "" : " (\(narrowed))") to \(destination)"
                      + " in \(NumberText.duration(Date().timeIntervalSince(started)))",
                      numbers: [("samples", LogNumber(samples)), ("tombstones", LogNumber(tombstones))])
        return .success
    }
}
