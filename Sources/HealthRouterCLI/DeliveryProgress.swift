import Foundation
import HealthRouterCore

/// The progress line of `backfill` and `migrate` on a terminal: one line on standard error,
/// rewritten at most every quarter second.
final class DeliveryProgress {
    private let label: String
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private let started = Date()

    init(label: String, quiet: Bool) {
        self.label = label
        enabled = !quiet && ProgressLine.standardErrorIsTerminal
    }

    func update(_ counts: DirectDelivery.Counts) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = Date()
        let seconds = max(0.001, Date().timeIntervalSince(started))
        let rate = Int(Double(counts.samples + counts.tombstones) / seconds)
        StandardError.write("\r\(label): \(NumberText.grouped(counts.samples)) samples written"
                            + (counts.resumed > 0 ? ", \(NumberText.grouped(counts.resumed)) done before" : "")
                            + ", \(NumberText.grouped(rate))/s\u{1B}[K")
    }

    func stop() {
        if enabled { StandardError.write("\r\u{1B}[K") }
    }

    /// Tells the user, on a line of its own (even with --quiet: the run is stalled, not progressing),
    /// that writing to `sink` failed and when it is tried again.
    func retryReporter(sink: String) -> (any Error, Int, Int, Double) -> Void {
        { [self] error, attempt, maxAttempts, delay in
            stop()
            StandardError.write("sink '\(sink)': \(error); trying again in "
                                + String(format: delay < 10 ? "%.1f" : "%.0f", delay) + " s (attempt \(attempt + 1) of \(maxAttempts))\n")
        }
    }
}
