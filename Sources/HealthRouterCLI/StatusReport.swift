import Foundation
import HealthRouterCore

/// What `healthrouter status` reports, read from the journal before it is written in one of its
/// formats: the table for people, or one JSON object for a monitor (Telegraf's `exec` input,
/// a cron job's `jq`), whose sink fields are named as those of an admin source's `GET /status`.
struct StatusReport {
    /// The journal's figures.
    struct JournalFigures {
        var entries: Int64
        /// The lowest sequence still stored (nil: none is).
        var oldest: Int64?
        var head: Int64
        var sampleIdsKnown: Int64
        var deletedIds: Int64
    }

    struct SinkFigures {
        var name: String
        var type: String
        /// Its progress (`Journal.sinkStates`).
        var state: SinkState
        /// Entries after the cursor that the sink's routes select.
        var lag: Int64 = 0
        /// Ranges of entries pruned before the sink wrote them.
        var gaps: [(first: Int64, last: Int64)] = []
        /// Its dead letters, all of them.
        var deadLetters: [(sequence: Int64, reason: String)] = []

        /// How many entries were pruned before it wrote them.
        var prunedEntriesLacking: Int64 { Journal.entryCount(of: gaps) }
    }

    var journal: JournalFigures
    var sinks: [SinkFigures] = []
    /// Entries no route selects, by type, most first.
    var unrouted: [(type: String, count: Int64)] = []

    /// Every sink caught up, without dead letters, an error or entries it lacks.
    var healthy: Bool {
        sinks.allSatisfy { $0.lag == 0 && $0.state.deadLetters == 0 && $0.state.lastError == nil && $0.gaps.isEmpty }
    }

    /// Reads the report of `config`'s sinks from `journal`.
    static func read(_ journal: Journal, config: HealthRouterConfig, routes: RouteTable) throws -> StatusReport {
        let counts = try journal.counts()
        var report = StatusReport(journal: JournalFigures(entries: counts.entries, oldest: try journal.oldestRetained(),
                                                          head: try journal.head(), sampleIdsKnown: counts.samples,
                                                          deletedIds: counts.deleted))
        let states = try journal.sinkStates(named: config.sinks.map(\.name))
        for (sink, state) in zip(config.sinks, states) {
            report.sinks.append(SinkFigures(name: sink.name, type: sink.type, state: state,
                                            lag: try journal.lag(ofSink: sink.name, after: state.cursor, routes: routes),
                                            gaps: try journal.lackingRanges(sink: sink.name, cursor: state.cursor, routes: routes),
                                            deadLetters: try journal.deadLetters(sink: sink.name)))
        }
        var unrouted: [String: Int64] = [:]
        for case let (type?, source, count) in try journal.entryCountsByTypeAndSource() {
            if !config.sinks.contains(where: { routes.selects(sink: $0.name, type: type, source: source) }) {
                unrouted[type, default: 0] += count
            }
        }
        report.unrouted = unrouted.sorted { $0.value > $1.value }.map { ($0.key, $0.value) }
        return report
    }

    /// The report in Prometheus' text format (`--format prometheus`): the journal's head and
    /// entries, each sink's figures (`SinkMetrics`), and 1 in `healthrouter_status_healthy` when
    /// every sink has caught up with nothing to look at.
    var prometheus: String {
        SinkMetrics.head(journal.head)
            + SinkMetrics.metric("healthrouter_journal_entries", "gauge", "Entries the journal holds (journal.retain prunes them).",
                                 [("", journal.entries)])
            + SinkMetrics(sinks: sinks.map {
                SinkMetrics.Sink(name: $0.name, cursor: $0.state.cursor, lag: $0.lag, written: $0.state.written,
                                 deadLetters: $0.state.deadLetters, writeFailing: $0.state.lastError != nil,
                                 prunedLacking: $0.prunedEntriesLacking)
            }).text
            + SinkMetrics.metric("healthrouter_status_healthy", "gauge",
                                 "1 when every sink has caught up, without dead letters, an error or pruned entries it lacks.",
                                 [("", healthy ? 1 : 0)])
    }

    /// The report as one JSON object (`--format json`), dead letters up to `deadLettersShown`
    /// a sink (nil: all); counts are numbers, an instant is ISO 8601 in UTC, what is missing is null.
    func json(config origin: String, stateDirectory: String, deadLettersShown: Int?) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("config", origin)
        writer.field("state_directory", stateDirectory)
        writer.key("healthy"); writer.bool(healthy)
        writer.key("journal")
        writer.beginObject()
        writer.key("entries"); writer.int(journal.entries)
        writer.key("first_sequence")
        if let oldest = journal.oldest { writer.int(oldest) } else { writer.null() }
        writer.key("head"); writer.int(journal.head)
        writer.key("sample_ids_known"); writer.int(journal.sampleIdsKnown)
        writer.key("deleted_ids"); writer.int(journal.deletedIds)
        writer.endObject()
        writer.key("sinks"); writer.beginArray()
        for sink in sinks {
            writer.beginObject()
            writer.field("name", sink.name)
            writer.field("type", sink.type)
            writer.key("cursor"); writer.int(sink.state.cursor)
            writer.key("lag"); writer.int(sink.lag)
            writer.key("written"); writer.int(sink.state.written)
            writer.key("dead_letters"); writer.int(sink.state.deadLetters)
            writer.key("pruned_entries_lacking"); writer.int(sink.prunedEntriesLacking)
            writer.key("last_error")
            if let error = sink.state.lastError { writer.string(error) } else { writer.null() }
            writer.key("updated_at")
            if let updated = sink.state.updatedAt {
                writer.string(Date(timeIntervalSince1970: Double(updated) / 1000).formatted(.iso8601))
            } else {
                writer.null()
            }
            writer.key("lacking_ranges"); writer.beginArray()
            for gap in sink.gaps {
                writer.beginArray(); writer.int(gap.first); writer.int(gap.last); writer.endArray()
            }
            writer.endArray()
            writer.key("dead_letter_list"); writer.beginArray()
            for letter in sink.deadLetters.prefix(deadLettersShown ?? sink.deadLetters.count) {
                writer.beginObject()
                writer.key("sequence"); writer.int(letter.sequence)
                writer.field("reason", letter.reason)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.key("unrouted"); writer.beginObject()
        for (type, count) in unrouted { writer.key(type); writer.int(count) }
        writer.endObject()
        writer.endObject()
        return writer.text
    }
}
