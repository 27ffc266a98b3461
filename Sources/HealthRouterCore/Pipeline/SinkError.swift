/// Errors a sink reports to its worker.
public enum SinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store refused the data: retrying the same entries cannot succeed.
    case rejected(String)
    /// The store failed; the same entries may succeed later.
    case unavailable(String)
    /// The sink's configuration, or its store's setup, is wrong (a missing extension, an unknown
    /// time zone, a path under a file): nothing succeeds until a person fixes it. An import gives
    /// up at once; the daemon tries again at its longest retry delay (the fix may come without a
    /// restart). The reason says what to fix.
    case misconfigured(String)
    /// The store is up but asks to be left alone for `retryAfter` seconds (a server's 429 or 503
    /// with `Retry-After`): retried as `unavailable`, but not sooner than it asks (within
    /// `SinkWorker.Settings.longestRequestedWait`).
    case busy(String, retryAfter: Double)
    /// The store holds what cannot be read back (a row edited by hand, a value the sink cannot
    /// decode, a damaged file): thrown by `ReadableSink.readBack`, never retried, as no retry
    /// reads it. The reason names the store, the row and what to do.
    case unreadable(String)
    /// The store took the batch but these entries, which it refused, each with its reason (a
    /// receiver that answered 200 and said which elements it skipped). Thrown only once the rest
    /// is written (and the cursor stored, for a sink that keeps its own): the write counts as
    /// done, the cursor moves past the batch, and these become the sink's dead letters.
    case partlyRefused([Refusal])

    /// An entry of a batch the store refused while taking the rest (`partlyRefused`).
    public struct Refusal: Sendable, Equatable {
        /// The entry's journal sequence.
        public var sequence: Int64
        /// Why the store refused it, as the store said.
        public var reason: String

        public init(sequence: Int64, reason: String) {
            self.sequence = sequence
            self.reason = reason
        }
    }

    public var description: String {
        switch self {
        case .rejected(let reason): "rejected: \(reason)"
        case .unavailable(let reason): "unavailable: \(reason)"
        case .misconfigured(let reason): "misconfigured: \(reason)"
        case .busy(let reason, _): "busy: \(reason)"
        case .unreadable(let reason): "unreadable: \(reason)"
        case .partlyRefused: "partly refused: \(reason)"
        }
    }

    /// The reason, without its kind.
    public var reason: String {
        switch self {
        case .rejected(let reason), .unavailable(let reason), .misconfigured(let reason), .busy(let reason, _),
             .unreadable(let reason): reason
        case .partlyRefused(let refusals):
            "\(refusals.count) entries refused" + (refusals.first.map { ", the first: \($0.reason)" } ?? "")
        }
    }

    /// Whether the same entries may succeed later by themselves: `unavailable` or `busy`.
    public var isTransient: Bool {
        switch self {
        case .unavailable, .busy: true
        case .rejected, .misconfigured, .partlyRefused, .unreadable: false
        }
    }

    /// The seconds a busy store asked to be left alone, else nil.
    public var retryAfter: Double? {
        if case .busy(_, let seconds) = self { seconds } else { nil }
    }

    /// Whether a person must fix something first: not worth retrying soon.
    public var isMisconfigured: Bool {
        if case .misconfigured = self { true } else { false }
    }

    /// How an `unreadable` reason ends, once it said to delete the row: the backfill of `sink`
    /// that writes the sample again, which the journal holds only until `journal.retain` prunes it
    /// (an older one comes back from an export or a dump, `--from`).
    public static func rewriteAdvice(sink: String) -> String {
        "run `healthrouter backfill \(sink)`, which writes it again from the journal (while it still holds the sample: "
            + "see `journal.retain`; else `--from` an export or a dump)"
    }
}
