/// The journal's head and each sink's progress in Prometheus' text format, under the names an
/// admin source's `GET /metrics` and `healthrouter status --format prometheus` (for
/// node_exporter's textfile collector, after a cron job's import) both use.
public struct SinkMetrics: Sendable {
    /// One sink's figures.
    public struct Sink: Sendable {
        public var name: String
        public var cursor: Int64
        /// Entries after the cursor that its routes select.
        public var lag: Int64
        public var written: Int64
        public var deadLetters: Int64
        /// Whether its last write failed (it is being retried).
        public var writeFailing: Bool
        /// Entries pruned before it wrote them.
        public var prunedLacking: Int64

        public init(name: String, cursor: Int64, lag: Int64, written: Int64, deadLetters: Int64, writeFailing: Bool,
                    prunedLacking: Int64) {
            self.name = name
            self.cursor = cursor
            self.lag = lag
            self.written = written
            self.deadLetters = deadLetters
            self.writeFailing = writeFailing
            self.prunedLacking = prunedLacking
        }
    }

    public var sinks: [Sink]

    public init(sinks: [Sink]) {
        self.sinks = sinks
    }

    /// One metric: its `# HELP` and `# TYPE` lines, then a line per row (`labels` as written:
    /// `{sink="local"}`, or empty).
    public static func metric(_ name: String, _ kind: String, _ help: String, _ rows: [(labels: String, value: Int64)]) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) \(kind)\n"
        for (labels, value) in rows { text += "\(name)\(labels) \(value)\n" }
        return text
    }

    /// The journal's highest sequence written.
    public static func head(_ head: Int64) -> String {
        metric("healthrouter_journal_head_sequence", "gauge", "Highest journal sequence written.", [("", head)])
    }

    /// `{sink="name"}`, the name escaped as the format asks.
    public static func label(_ sink: String) -> String {
        "{sink=\"" + sink.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\"}"
    }

    /// The sinks' metrics.
    public var text: String {
        func rows(_ value: (Sink) -> Int64) -> [(labels: String, value: Int64)] { sinks.map { (Self.label($0.name), value($0)) } }
        return Self.metric("healthrouter_sink_cursor_sequence", "gauge", "Last journal sequence the sink acknowledged.",
                           rows(\.cursor))
            + Self.metric("healthrouter_sink_lag_entries", "gauge", "Journal entries after the sink's cursor that its routes select.",
                          rows(\.lag))
            + Self.metric("healthrouter_sink_written_total", "counter", "Entries the sink wrote.", rows(\.written))
            + Self.metric("healthrouter_sink_dead_letters", "gauge", "Entries the sink refused, parked as dead letters.",
                          rows(\.deadLetters))
            + Self.metric("healthrouter_sink_write_failing", "gauge", "1 when the sink's last write failed (it is being retried).",
                          rows { $0.writeFailing ? 1 : 0 })
            + Self.metric("healthrouter_sink_pruned_entries_lacking", "gauge",
                          "Journal entries pruned before the sink wrote them (backfill --from brings them back).", rows(\.prunedLacking))
    }
}
