import Foundation
import HealthRouterCore

/// The summary printed at the end of an import: what was read by kind, what was
/// new, what was skipped and why, and what each sink wrote.
struct ImportReport {
    var summary: ImportRun.Summary
    /// What each of `summary.sources` read (the file given, or the configured path), in order.
    var inputs: [String]
    /// Whether one of `inputs` is a folder (as the config resolves it: a `~` is `HOME`'s), whose
    /// files may hold one record twice between them.
    var readsFolder = false
    var sinkTypes: [String: String]
    /// The sinks' names in the config's order, in which they are listed (as `status` lists them);
    /// any other after them, by name.
    var sinkOrder: [String] = []
    /// The pid of the `healthrouter run` that holds the state directory, when one does: the import
    /// journaled what it read and left the delivery to it.
    var deliveringDaemon: String? = nil
    /// Whether `deliveringDaemon` is known to be a healthrouter run, not only a process that holds
    /// the state directory's lock and may be one (not found, or its name cannot be read).
    var daemonConfirmed = true
    /// `--time-zone`, when given: samples already in the journal keep their offsets, which the
    /// summary says when it met some.
    var timeZone: String? = nil
    /// Per sink, the entries it lacks because they were pruned before it wrote them
    /// (`Journal.lackingRanges`).
    var lacking: [String: [(first: Int64, last: Int64)]] = [:]
    /// `journal.retain` as the config gives it (`30d`): the summary says which entries were pruned.
    var retain: String? = nil

    /// Whether any record was read or skipped: a failed import that read neither shows only its error.
    var readAnything: Bool { summary.sources.contains { $0.counters.records > 0 || !$0.counters.skipped.isEmpty } }

    private func input(_ index: Int) -> String {
        index < inputs.count ? inputs[index] : summary.sources[index].name
    }

    /// One or two lines per failed source, for standard error.
    func errors() -> [String] {
        var lines: [String] = []
        for (index, source) in summary.sources.enumerated() {
            guard let failure = source.failure else { continue }
            let input = input(index), records = source.counters.records
            var text = failure.hasPrefix(input) ? failure : "\(input): \(failure)"
            // Said once: the source may have said it already ("(the 120 items … were kept)"). At the end
            // of the problem, before the hint (what to do), which it followed as if part of it.
            if records > 0 && !failure.contains(" kept") {
                let note = " (the \(NumberText.counted(records, "record")) read before the error \(records == 1 ? "was" : "were") kept)"
                let hint = text.range(of: "\n  hint: ")?.lowerBound ?? text.endIndex
                text.insert(contentsOf: note, at: hint)
            }
            lines.append(text)
        }
        for (index, source) in summary.sources.enumerated() where Self.nothingUsable(source) {
            let counters = source.counters
            let skipped = counters.skipped.values.reduce(0, +)
            guard let (reason, count) = counters.skipped.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })
            else { continue }
            let place = counters.skippedExamples[reason].map { ", first at \($0)" } ?? ""
            lines.append("\(input(index)): none of its records could be imported: \(NumberText.counted(skipped, "element")) skipped, "
                         + "\(count) × \(reason)\(place)\n  hint: if healthrouter should read this file (an Apple Health export, "
                         + "Health Auto Export's JSON, NDJSON of samples), the summary above says why each element was left "
                         + "out; the file may be of a kind or version healthrouter does not know yet")
        }
        return lines
    }

    /// Whether `source` was read to its end but gave nothing (but a profile, an export's `Me`):
    /// every other element it held was skipped, and it deleted nothing.
    static func nothingUsable(_ source: ImportRun.SourceResult) -> Bool {
        let appended = source.counters.appended
        let profiles = [appended.new, appended.duplicates, appended.changed].reduce(0) { $0 + ($1[.profile] ?? 0) }
        return source.failure == nil && source.counters.records == profiles && appended.deletedIds == 0
            && appended.aliased == 0 && !source.counters.skipped.isEmpty
    }

    func render() -> String {
        var lines: [String] = []
        var merged = ImportCounters()
        var skipped: [String: Int] = [:]
        var examples: [String: String] = [:]
        for (index, source) in summary.sources.enumerated() {
            let counters = source.counters
            merged.appended.merge(counters.appended)
            merged.bytes += counters.bytes
            skipped.merge(counters.skipped, uniquingKeysWith: +)
            // With several files, a place says which file it is in (`line 41` alone could be any), by
            // the input as given (two files of one name in two folders stay apart).
            let file = input(index), name = (file as NSString).lastPathComponent
            let named = summary.sources.count > 1 ? counters.skippedExamples.mapValues { place in
                // `b.ndjson:3` of the file b.ndjson → `dir/b.ndjson:3`; `line 41` → `dir/a.xml, line 41`.
                place.hasPrefix(name + ":") ? file + place.dropFirst(name.count) : "\(file), \(place)"
            } : counters.skippedExamples
            examples.merge(named) { a, _ in a }
        }
        let appended = merged.appended
        // The files read: not one that failed before it gave a record or a skip (its error says what happened).
        let inputList = summary.sources.indices.filter {
            let source = summary.sources[$0]
            return source.failure == nil || source.counters.records > 0 || !source.counters.skipped.isEmpty
        }.map(input).reduce(into: [String]()) { list, input in
            // A folder two sources read (.ndjson and Health Auto Export's .json files) is named once.
            if !list.contains(input) { list.append(input) }
        }.joined(separator: ", ")
        var rate = ""
        if summary.seconds > 0 && merged.bytes > 0 {
            rate = ", \(NumberText.bytes(Int64(Double(merged.bytes) / summary.seconds)))/s"
        }
        lines.append("imported \(inputList) in \(NumberText.duration(summary.seconds)) (\(NumberText.bytes(merged.bytes))\(rate))")

        var byKind: [SampleKind: Int] = appended.new
        byKind.merge(appended.duplicates, uniquingKeysWith: +)
        byKind.merge(appended.changed, uniquingKeysWith: +)
        let kinds = SampleKind.allCases.compactMap { kind in byKind[kind].map { "\(NumberText.grouped($0)) \(kind.name)" } }
        let records = merged.records
        lines.append("  read        \(NumberText.counted(records, "record"))" + (kinds.isEmpty ? "" : ": " + kinds.joined(separator: ", ")))
        if appended.newCount == 0 && appended.changedCount == 0 && appended.deletedIds == 0 && records > 0 {
            if summary.sinks.values.contains(where: { $0.written > 0 }) {
                lines.append("  nothing new: every record was already in the journal; the sinks below caught up on what an earlier run left undelivered")
            } else {
                lines.append("  nothing new: every record was already imported")
            }
        } else {
            lines.append("  new         \(NumberText.grouped(appended.newCount))")
        }
        if appended.duplicateCount > 0 {
            // Those met earlier in the same file are not "already in the journal" on a first import.
            let repeated = appended.repeatedInInput
            let earlier = appended.duplicateCount - repeated
            var parts: [String] = []
            if earlier > 0 {
                parts.append((repeated > 0 ? "\(NumberText.grouped(earlier)) " : "") + "already in the journal"
                             + (appended.aliased > 0 ? ", \(appended.aliased) of them under another id" : ""))
            }
            if repeated > 0 {
                // Of a folder, the record may have been in another of its files.
                parts.append((earlier > 0 ? "\(NumberText.grouped(repeated)) " : "")
                             + (readsFolder ? "read earlier from the same file or folder: a record given twice (in one file or in two)"
                                       : "read earlier in the same file: a record given twice")
                             + ", or a correlation's member")
            }
            if appended.earlierVersions > 0 {
                let count = appended.earlierVersions
                parts.append("\(NumberText.grouped(count)) of them " + (count == 1
                    ? "an earlier version of a sample the journal holds in a later one, which stays"
                    : "earlier versions of samples the journal holds in a later one, which stays"))
            }
            lines.append("  duplicates  \(NumberText.grouped(appended.duplicateCount)) (\(parts.joined(separator: "; ")))")
            if let timeZone, earlier > 0 {
                lines.append("  time zone   --time-zone \(timeZone) gives its offsets to samples new to the journal; the "
                             + "\(NumberText.grouped(earlier)) already in it keep the ones they were first imported with "
                             + "(for the zone's everywhere, import into a new state directory and new stores)")
            }
        }
        if appended.changedCount > 0 {
            lines.append("  changed     \(NumberText.grouped(appended.changedCount)) (same id, new content: re-delivered)")
        }
        if appended.deletedIds > 0 { lines.append("  deleted     \(NumberText.grouped(appended.deletedIds))") }
        if appended.replacedProfiles > 0 {
            lines.append("  profile     replaced by a later one of other content: the one before is deleted in every store"
                         + (appended.replacedProfiles > 1 ? " (\(appended.replacedProfiles) profiles)" : ""))
        }
        let skippedTotal = skipped.values.reduce(0, +)
        if skippedTotal > 0 {
            lines.append("  skipped     \(NumberText.grouped(skippedTotal))")
            for (reason, count) in skipped.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
                let at = examples[reason].map { ", first at \($0)" } ?? ""
                lines.append("    \(NumberText.grouped(count)) × \(reason)\(at)")
            }
        }
        if let deliveringDaemon, !daemonConfirmed {
            let holder = deliveringDaemon == "?" ? "a process this one cannot name" : "pid \(deliveringDaemon)"
            lines.append("  sinks       left to what holds this state directory's lock (\(holder): a healthrouter run, or another "
                         + "program whose name cannot be read here): `healthrouter status` shows what waits; if it is no "
                         + "healthrouter run, import again once the lock is gone, or start one")
        } else if let deliveringDaemon {
            lines.append("  sinks       delivered by the running daemon (healthrouter run, pid \(deliveringDaemon)), which holds "
                         + "this state directory: `healthrouter status` shows them catching up")
        } else if summary.sinks.isEmpty {
            lines.append("  sinks       none in the config: what was read stays in the journal (add one under sinks:)")
        } else {
            lines.append("  sinks")
            // Names and types in columns: `local  sqlite       …` above `tsdb   timescaledb  …`.
            let width = summary.sinks.keys.map(\.count).max() ?? 0
            let typeWidth = summary.sinks.keys.map { (sinkTypes[$0] ?? "").count }.max() ?? 0
            let position = Dictionary(sinkOrder.enumerated().map { ($1, $0) }) { a, _ in a }
            for name in summary.sinks.keys.sorted(by: { (position[$0] ?? .max, $0) < (position[$1] ?? .max, $1) }) {
                let progress = summary.sinks[name]!
                let padded = name.padding(toLength: width, withPad: " ", startingAt: 0)
                let type = (sinkTypes[name] ?? "").padding(toLength: typeWidth, withPad: " ", startingAt: 0)
                var line = "    \(padded)  \(type)  \(NumberText.counted(progress.written, "row")) written"
                if progress.deadLetters > 0 {
                    line += ", \(NumberText.counted(progress.deadLetters, "dead letter")) (see: healthrouter status)"
                }
                if let reason = progress.gaveUp, progress.notNeeded && !progress.gaveUpMisconfigured {
                    line += ", none from this import (its routes select nothing it read)\n      not waited for: \(reason)"
                    switch summary.waiting[name] {
                    case 0?:
                        line += "\n      nothing waits for it"
                    case let count?:
                        line += "\n      \(NumberText.counted(Int(count), "entry", plural: "entries")) its routes select wait for it in the journal: "
                            + "once the store is back, `healthrouter run` or the next import delivers them"
                    case nil:
                        line += "\n      entries its routes select may wait for it in the journal (see `healthrouter status`)"
                    }
                } else if let reason = progress.gaveUp {
                    line += "\n      NOT caught up: \(reason)\n      the entries stay in the journal: once the sink is back (or its config "
                        + "is fixed), run the import again or `healthrouter run`"
                } else {
                    line += ", caught up"
                }
                if let gaps = lacking[name] {
                    line += "\n      lacks entries \(Journal.describe(gaps)): pruned (journal.retain) before it wrote them; "
                        + "`healthrouter backfill \(name) --from <export.zip or dump>` brings their samples back"
                }
                lines.append(line)
            }
        }
        if summary.pruned > 0 {
            // At the end, after every sink passed the entries: seconds in which the progress line stood at 100%.
            lines.append("  journal     pruned \(NumberText.counted(summary.pruned, "entry", plural: "entries"))"
                         + (retain.map { " older than \($0)" } ?? "") + " (journal.retain) in \(NumberText.duration(summary.pruneSeconds))")
        }
        return lines.joined(separator: "\n")
    }
}
