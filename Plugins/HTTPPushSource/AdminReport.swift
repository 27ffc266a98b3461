import Foundation
import HealthRouterCore

/// What `/metrics` and `/status` show.
struct AdminReport {
    var head: Int64
    /// Why the journal refuses the pushes' appends now, or nil.
    var journalWriteError: String?
    var pushed: AppendResult
    var sinks: [(state: SinkState, lag: Int64)]
    /// Per sink (by name), how many entries were pruned before it wrote them, of those its routes
    /// select (`Journal.lackingRanges`).
    var lacking: [String: Int64] = [:]

    /// The journal's head and the state of each sink in `sinkNames`, in that order.
    /// A sink's lag counts what its `routes` select, as `status` does (every entry when nil).
    static func read(journal: Journal, sinkNames: [String], routes: RouteTable? = nil, pushed: AppendResult,
                     journalWriteError: String? = nil) throws -> AdminReport {
        let head = try journal.head()
        let sinks = try journal.sinkStates(named: sinkNames).map { state in
            (state, try journal.lag(ofSink: state.sink, after: state.cursor, routes: routes))
        }
        var lacking: [String: Int64] = [:]
        for (state, _) in sinks { lacking[state.sink] = try journal.prunedEntryCount(sink: state.sink, cursor: state.cursor, routes: routes) }
        return AdminReport(head: head, journalWriteError: journalWriteError, pushed: pushed, sinks: sinks, lacking: lacking)
    }

    var prometheus: String {
        var text = SinkMetrics.head(head)
        text += SinkMetrics.metric("healthrouter_journal_write_failing", "gauge",
                                   "1 when the journal refused the latest push (disk full, not writable, replaced): pushes get 500.",
                                   [("", journalWriteError == nil ? 0 : 1)])
        text += SinkMetrics.metric("healthrouter_push_samples_accepted_total", "counter", "New samples pushed and journaled by this process.",
                                   [("", Int64(pushed.newCount))])
        text += SinkMetrics.metric("healthrouter_push_samples_duplicate_total", "counter", "Pushed samples already in the journal.",
                                   [("", Int64(pushed.duplicateCount))])
        text += SinkMetrics.metric("healthrouter_push_samples_changed_total", "counter", "Pushed samples that changed under a known id.",
                                   [("", Int64(pushed.changedCount))])
        text += SinkMetrics.metric("healthrouter_push_deleted_ids_total", "counter", "Tombstoned ids pushed and journaled.",
                                   [("", Int64(pushed.deletedIds))])
        return text + SinkMetrics(sinks: sinks.map { state, lag in
            SinkMetrics.Sink(name: state.sink, cursor: state.cursor, lag: lag, written: state.written, deadLetters: state.deadLetters,
                             writeFailing: state.lastError != nil, prunedLacking: lacking[state.sink] ?? 0)
        }).text
    }

    var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("journal"); writer.beginObject(); writer.key("head"); writer.int(head)
        writer.key("write_error")
        if let journalWriteError { writer.string(journalWriteError) } else { writer.null() }
        writer.endObject()
        writer.key("push"); writer.beginObject()
        writer.key("accepted"); writer.int(Int64(pushed.newCount))
        writer.key("duplicates"); writer.int(Int64(pushed.duplicateCount))
        writer.key("changed"); writer.int(Int64(pushed.changedCount))
        writer.key("deleted_ids"); writer.int(Int64(pushed.deletedIds))
        writer.endObject()
        writer.key("sinks"); writer.beginArray()
        for (state, lag) in sinks {
            writer.beginObject()
            writer.key("name"); writer.string(state.sink)
            writer.key("cursor"); writer.int(state.cursor)
            writer.key("lag"); writer.int(lag)
            writer.key("written"); writer.int(state.written)
            writer.key("dead_letters"); writer.int(state.deadLetters)
            writer.key("pruned_entries_lacking"); writer.int(lacking[state.sink] ?? 0)
            if let error = state.lastError { writer.key("last_error"); writer.string(error) } else { writer.key("last_error"); writer.null() }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.text
    }
}
