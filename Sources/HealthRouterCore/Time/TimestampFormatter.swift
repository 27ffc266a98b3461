/// Writes instants as text, fast, without Foundation's formatters.
public enum TimestampFormatter {
    /// ISO 8601 at second precision with the original offset (`2026-07-06T01:12:00+01:00`),
    /// `Z` when the offset is zero, UTC when unknown; milliseconds are written only when
    /// non-zero (`…T01:12:00.250+01:00`).
    public static func iso8601(_ timestamp: Timestamp) -> String {
        "" // TODO(helper A): implement
    }
}
