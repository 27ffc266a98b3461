import Foundation
import HealthRouterCore

/// The progress line of `backfill` and `migrate` on a terminal: one line on standard error,
/// rewritten at most every quarter second (none with `--log-format json`); and their retry lines,
/// written to `notices`. With a `Span` (the positions the run goes through, when they are known
/// before it starts), it shows how far it is, the share done and an ETA.
final class DeliveryProgress {
    /// The positions (`DirectDelivery.Counts.position`) a run goes through: those after `before`
    /// up to `last`, counted as `noun` (`entries`: journal sequence numbers; `items`: a store's
    /// rows read back). A resumed run starts at `resumedAfter`, from which its rate is measured.
    struct Span {
        var before: Int64
        var last: Int64
        var resumedAfter: Int64
        var noun: String
    }

    private let label: String
    private let enabled: Bool
    /// Set again by a run that starts over (a migration whose source changed).
    var span: Span?
    /// The span's last position now, for a run that goes on past the last it started with (a
    /// backfill from a journal the daemon's pushes grow): asked when the run reaches `span.last`.
    var currentLast: (() -> Int64?)?
    private let notices: NoticeOutput
    private var lastDraw = Date.distantPast
    private let started = Date()

    init(label: String, quiet: Bool, span: Span? = nil, notices: NoticeOutput) {
        self.label = label
        self.span = span
        self.notices = notices
        enabled = ProgressLine.isDrawn(quiet: quiet, format: notices.format)
    }

    func update(_ counts: DirectDelivery.Counts) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = Date()
        extendSpan(reaching: counts.position)
        StandardError.write("\r\(Self.text(label: label, counts: counts, span: span, seconds: Date().timeIntervalSince(started)))\u{1B}[K")
    }

    /// Moves the span's last position to `currentLast` once a run has reached it at `position`.
    func extendSpan(reaching position: Int64) {
        if let last = span?.last, position >= last, let now = currentLast?(), now > last {
            span?.last = now
        }
    }

    /// The line for `counts` after `seconds`: `backfilling lake: 1,200,000 / 4,700,000 entries  25%
    /// 1,180,000 samples written, 48,000/s  ETA 1m12s`, or without a span the samples written and
    /// the rate alone.
    static func text(label: String, counts: DirectDelivery.Counts, span: Span?, seconds: Double) -> String {
        let seconds = max(0.001, seconds)
        let rate = Int(Double(counts.samples + counts.tombstones) / seconds)
        var line = "\(label): "
        var eta = ""
        if let span, span.last > span.before {
            // A journal that grew meanwhile (pushes beside a backfill) can go past the last known.
            let total = span.last - span.before, done = min(total, max(0, counts.position - span.before))
            let fraction = Double(done) / Double(total)
            line += "\(NumberText.grouped(done)) / \(NumberText.grouped(total)) \(span.noun)  \(Int(fraction * 100))%  "
            let moved = counts.position - span.resumedAfter
            if moved > 0, fraction > 0.01, fraction < 1 {
                eta = "  ETA \(NumberText.duration(seconds * Double(span.last - counts.position) / Double(moved)))"
            }
        }
        line += "\(NumberText.grouped(counts.samples)) samples written"
            + (counts.resumed > 0 ? ", \(NumberText.grouped(counts.resumed)) done before" : "")
            + ", \(NumberText.grouped(rate))/s" + eta
        return line
    }

    func stop() {
        if enabled { StandardError.write("\r\u{1B}[K") }
    }

    /// Tells the user, on a line of its own (even with --quiet: the run is stalled, not progressing),
    /// that writing to `sink` failed and when it is tried again.
    func retryReporter(sink: String) -> (any Error, Int, Int, Double) -> Void {
        let report = Self.retryReporter(sink: sink, notices: notices)
        return { [self] error, attempt, maxAttempts, delay in
            stop()
            report(error, attempt, maxAttempts, delay)
        }
    }

    /// The retry line of a command that draws no progress line (`dump --from`, `migrate
    /// --verify-only`): `sink 'supa': unavailable: …; trying again in 0.5 s (attempt 2 of 5)`.
    static func retryReporter(sink: String, notices: NoticeOutput) -> (any Error, Int, Int, Double) -> Void {
        { error, attempt, maxAttempts, delay in
            notices.write("sink '\(sink)': \(error); trying again in "
                          + String(format: delay < 10 ? "%.1f" : "%.0f", delay) + " s (attempt \(attempt + 1) of \(maxAttempts))",
                          level: .warning, [("sink", sink)], numbers: [("attempt", LogNumber(attempt + 1)), ("max_attempts", LogNumber(maxAttempts))])
        }
    }
}
