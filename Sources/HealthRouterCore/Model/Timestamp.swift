/// An absolute instant with millisecond precision, plus the UTC offset it was
/// written with when the producer said so.
///
/// Sinks store `epochMilliseconds` as the instant; `utcOffsetSeconds` keeps the
/// original wall-clock offset for local-day questions and for re-serialising the
/// sample the way its producer wrote it.
public struct Timestamp: Sendable, Hashable, Comparable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var epochMilliseconds: Int64
    /// The offset from UTC the producer wrote this instant with, in seconds (nil: unknown).
    public var utcOffsetSeconds: Int32?

    public init(epochMilliseconds: Int64, utcOffsetSeconds: Int32? = nil) {
        self.epochMilliseconds = epochMilliseconds
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    public init(epochSeconds: Int64, utcOffsetSeconds: Int32? = nil) {
        self.init(epochMilliseconds: epochSeconds * 1000, utcOffsetSeconds: utcOffsetSeconds)
    }

    /// Instants compare in absolute time only: the offset is presentation.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.epochMilliseconds < rhs.epochMilliseconds
    }
}
