import HealthRouterCore

/// How a `backfill` or `migrate` whose delivery failed ends, its progress line stopped first: a
/// misconfigured sink is a config error (78) no run fixes by itself; a failure with its own exit
/// code (`CommandFailure`: a source store that holds a row it cannot read, 65) ends the run with
/// that code; any other failure (a store that failed five times in a row, a source that changed)
/// ends the run incomplete (1), to be run again to resume after what was acknowledged.
enum DirectDeliveryStop {
    /// Throws the config error of `SinkError.misconfigured` (`RUN stopped: SINK is misconfigured:
    /// …`, hinting `FIX, then run the same command again to resume`), a `CommandFailure` led by
    /// `RUN stopped: `, its hint saying where the run resumes; for any other `error`, writes
    /// `RUN stopped: ERROR` with the hint to resume after `resumeAfter`, and returns `.incomplete`.
    /// `resumeAfter` is the position acknowledged last, `noun` what it counts (`items`, or none);
    /// at 0 (nothing acknowledged yet) the hints name no resume point: the run starts from the
    /// beginning. `run` names the run (`the backfill of 'local'`), `sink` the sink it blames (`the sink`).
    static func exitCode(after error: any Error, run: String, sink: String, fix: String, resumeAfter: Int64, noun: String? = nil,
                         progress: DeliveryProgress, format: Logger.Format) throws -> ExitCode {
        progress.stop()
        let point = NumberText.grouped(resumeAfter) + (noun.map { " \($0)" } ?? "")
        if let failure = error as? CommandFailure {
            let again = resumeAfter > 0 ? "it resumes after \(point)" : "it starts from the beginning"
            throw CommandFailure(message: "\(run) stopped: \(failure.message)", hint: (failure.hint ?? fix) + " (\(again))",
                                 code: failure.code)
        }
        if case SinkError.misconfigured(let reason) = error {
            throw CommandFailure(message: "\(run) stopped: \(sink) is misconfigured: \(reason)",
                                 hint: "\(fix), then run the same command again" + (resumeAfter > 0 ? " to resume" : ""),
                                 code: .config)
        }
        let again = resumeAfter > 0 ? "run the same command again to resume after \(point)"
            : "run the same command again (nothing was delivered yet: it starts from the beginning)"
        ErrorOutput(format: format).write("\(run) stopped: \(error)\n  hint: \(again)", exitCode: .incomplete)
        return .incomplete
    }
}
