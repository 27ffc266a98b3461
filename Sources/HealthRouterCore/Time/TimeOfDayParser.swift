/// Resolves the locale-formatted times of day in HRV beat lists
/// (`InstantaneousBeatsPerMinute@time`: `8:05:01.23 AM`, `08:33:44,67`, U+202F before AM)
/// to instants, on the local day of a reference instant.
///
/// Accepted: `H:mm:ss` or `HH:mm:ss` (seconds optional), `H.mm.ss` (Finnish, Danish;
/// seconds required), a fraction after `.` or `,`
/// truncated to milliseconds, then optionally an ASCII space, U+00A0 or U+202F and
/// `AM`/`PM` in any case (`a.m.` too); the Japanese, Chinese and Korean markers before
/// the time (`午後6:14:48.94`) or after it. Without a marker the time is 24-hour.
public enum TimeOfDayParser {
    /// The instant `text` names on the local day (in the reference's offset) of
    /// `reference`, moved a day forward when that lies more than 12 hours before
    /// `reference` (a beat list that crosses midnight). Nil when `text` is not a time of day.
    /// Symmetrically, it is moved a day back when it lies more than 12 hours after
    /// `reference` (a reference taken just after midnight, beats just before), so the
    /// result is always within (−12 h, +12 h] of `reference`.
    ///
    /// The result carries the reference's `utcOffsetSeconds`; a reference without an
    /// offset is taken as UTC.
    public static func resolve(_ text: String, relativeTo reference: Timestamp) -> Timestamp? {
        if let resolved = text.utf8.withContiguousStorageIfAvailable({ resolve($0, relativeTo: reference) }) {
            return resolved
        }
        var copy = text
        return copy.withUTF8 { resolve($0, relativeTo: reference) }
    }

    /// `resolve(_:relativeTo:)` for UTF-8 bytes.
    public static func resolve(_ bytes: UnsafeBufferPointer<UInt8>, relativeTo reference: Timestamp) -> Timestamp? {
        guard let milliseconds = millisecondsSinceMidnight(bytes) else { return nil }
        let offsetMilliseconds = Int64(reference.utcOffsetSeconds ?? 0) * 1000
        let localReference = reference.epochMilliseconds + offsetMilliseconds
        let localMidnight = floorDivide(localReference, by: dayMilliseconds) * dayMilliseconds
        var instant = localMidnight + Int64(milliseconds) - offsetMilliseconds
        if reference.epochMilliseconds - instant > halfDayMilliseconds {
            instant += dayMilliseconds
        } else if instant - reference.epochMilliseconds > halfDayMilliseconds {
            instant -= dayMilliseconds
        }
        return Timestamp(epochMilliseconds: instant, utcOffsetSeconds: reference.utcOffsetSeconds)
    }

    /// Milliseconds since midnight that `bytes` name; nil when they are not a time of day.
    public static func millisecondsSinceMidnight(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var scanner = ByteScanner(bytes)
        guard let milliseconds = scanner.timeOfDayMilliseconds(), scanner.isAtEnd else { return nil }
        return milliseconds
    }

    private static let dayMilliseconds: Int64 = 86_400_000
    private static let halfDayMilliseconds: Int64 = 43_200_000

    private static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
