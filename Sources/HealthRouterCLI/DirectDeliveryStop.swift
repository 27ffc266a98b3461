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
    /// `run` names the run (`the backfill of 'local'`), `sink` the sink it blames (`the sink`).
    static func exitCode(after error: any Error, run: String, sink: String, fix: String, resumeAfter: String,
                         progress: DeliveryProgress, format: Logger.Format) throws -> ExitCode {
        progress.stop()
        if let failure = error as? CommandFailure {
            throw CommandFailure(message: "\(run) stopped: \(failure.message)",
                                 hint: (failure.hint ?? fix) + " (it resumes after \(resumeAfter))", code: failure.code)
        }
        if case SinkError.misconfigured(let reason) = error {
            throw CommandFailure(message: "\(run) stopped: \(sink) is misconfigured: \(reason)",
                                 hint: "\(fix), then run the same command again to resume", code: .config)
        }
        ErrorOutput(format: format).write("\(run) stopped: \(error)\n  hint: run the same command again to resume after \(resumeAfter)",
                                          exitCode: .incomplete)
        return .incomplete
    }
}
