import Testing
@testable import HealthRouterCore

/// The Prometheus text an admin source's /metrics and `status --format prometheus` share.
@Suite struct SinkMetricsTests {
    @Test func aSinkNameIsEscapedAsTheFormatAsks() {
        #expect(SinkMetrics.label(#"a"b\c"#) == #"{sink="a\"b\\c"}"#)
        let metrics = SinkMetrics(sinks: [SinkMetrics.Sink(name: "local", cursor: 7, lag: 2, written: 5, deadLetters: 1,
                                                           writeFailing: true, prunedLacking: 3)])
        let lines = metrics.text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines == ["healthrouter_sink_cursor_sequence{sink=\"local\"} 7", "healthrouter_sink_lag_entries{sink=\"local\"} 2",
                          "healthrouter_sink_written_total{sink=\"local\"} 5", "healthrouter_sink_dead_letters{sink=\"local\"} 1",
                          "healthrouter_sink_write_failing{sink=\"local\"} 1",
                          "healthrouter_sink_pruned_entries_lacking{sink=\"local\"} 3"])
        #expect(metrics.text.contains("# TYPE healthrouter_sink_written_total counter\n"))
    }
}
