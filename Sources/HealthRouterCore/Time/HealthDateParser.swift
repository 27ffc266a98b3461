/// Parses the date strings health data arrives with, straight from bytes, without
/// Foundation's DateFormatter (which manages about 20 k dates/s on Linux).
///
/// Accepted (leading and trailing ASCII whitespace is ignored):
/// - export.xml and Health Auto Export: `2023-01-01 08:00:00 -0800` (a fast path);
/// - ISO 8601 / RFC 3339 (Pulso): `2026-07-06T01:12:00+01:00`, `…Z`, with `T`, `t` or
///   a space between date and time;
/// - offsets `Z`, `±HH:MM`, `±HHMM`, `±HH` (also `UTC`, `GMT`, `UTC+01:00`, U+2212 as
///   minus), with or without spaces before them;
/// - fractional seconds after `.` or `,`, any number of digits, truncated to
///   milliseconds (`.5` → 500 ms, `.123456` → 123 ms); seconds may be left out (`10:00Z`);
/// - 12-hour times, as Health Auto Export writes them on 12-hour phones:
///   `2024-01-05 9:07:03 PM -0500`, with an ASCII space, U+00A0 or U+202F before the
///   marker, `AM`/`am`/`a.m.` (12 AM is midnight, 12 PM noon);
/// - date only, `2024-01-05` (Health Auto Export's aggregated sleep): midnight UTC
///   with `utcOffsetSeconds == nil` — the calendar day, not an instant anyone observed,
///   so `TimestampFormatter.date(_:)` gives back the same day;
/// - a date and time without an offset (`2024-01-05T10:00:00`): read as UTC with
///   `utcOffsetSeconds == nil` (the offset is unknown, so none is claimed);
/// - the compact form of exports from iOS 8 and 9, `20151107171924+0100` (`yyyyMMddHHmmss±hhmm`).
///
/// `utcOffsetSeconds` is the offset written (0 for `Z`). Nil for anything else:
/// wrong lengths, month 13, 30 February, hour 24, `13:00 PM`, letters, trailing text, and an
/// instant outside the UTC years 0000–9999 (`0000-01-01 00:00:00 +0100`).
public enum HealthDateParser {
    /// Parses `bytes`; nil when they are not a date this parser knows.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        if bytes.count == 25, let timestamp = parseExportStyle(bytes) { return timestamp }
        if bytes.count == 19, let timestamp = parseCompactStyle(bytes) { return timestamp }
        return parseAnyStyle(bytes)
    }

    /// Parses `text`; nil when it is not a date this parser knows.
    public static func parse(_ text: String) -> Timestamp? {
        if let timestamp = text.utf8.withContiguousStorageIfAvailable({ parse($0) }) { return timestamp }
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// Parses UTF-8 `bytes`; nil when they are not a date this parser knows.
    public static func parse(_ bytes: [UInt8]) -> Timestamp? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date.
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        CivilDate(year: year, month: month, day: day).daysSinceEpoch
    }

    /// `yyyy-MM-dd HH:mm:ss ±hhmm`, exactly 25 bytes; nil sends the text to the general parser.
    @inline(__always)
    private static func parseExportStyle(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: " ")
        else { return nil }
        let signByte = bytes[20]
        guard signByte == UInt8(ascii: "+") || signByte == UInt8(ascii: "-") else { return nil }
        var scanner = ByteScanner(bytes)
        guard let year = scanner.digits(4, at: 0), let month = scanner.digits(2, at: 5), let day = scanner.digits(2, at: 8),
              let hour = scanner.digits(2, at: 11), let minute = scanner.digits(2, at: 14), let second = scanner.digits(2, at: 17),
              let offsetHours = scanner.digits(2, at: 21), let offsetMinutes = scanner.digits(2) else { return nil }
        return fixedWidthTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                   signByte: signByte, offsetHours: offsetHours, offsetMinutes: offsetMinutes)
    }

    /// `yyyyMMddHHmmss±hhmm`, exactly 19 bytes (exports of iOS 8 and 9).
    private static func parseCompactStyle(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        let signByte = bytes[14]
        guard signByte == UInt8(ascii: "+") || signByte == UInt8(ascii: "-") else { return nil }
        var scanner = ByteScanner(bytes)
        guard let year = scanner.digits(4, at: 0), let month = scanner.digits(2), let day = scanner.digits(2),
              let hour = scanner.digits(2), let minute = scanner.digits(2), let second = scanner.digits(2),
              let offsetHours = scanner.digits(2, at: 15), let offsetMinutes = scanner.digits(2) else { return nil }
        return fixedWidthTimestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                   signByte: signByte, offsetHours: offsetHours, offsetMinutes: offsetMinutes)
    }

    /// The instant of the fields of a fixed-width style (export, compact), the offset's sign
    /// `signByte` (`+` or `-`); nil when a field is out of its range.
    @inline(__always)
    private static func fixedWidthTimestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                                            signByte: UInt8, offsetHours: Int, offsetMinutes: Int) -> Timestamp? {
        guard month >= 1, month <= 12, day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60, offsetHours < 24, offsetMinutes < 60 else { return nil }
        let magnitude = offsetHours * 3600 + offsetMinutes * 60
        return makeTimestamp(year: year, month: month, day: day, millisecondsOfDay: (hour * 3600 + minute * 60 + second) * 1000,
                             offset: signByte == UInt8(ascii: "-") ? -magnitude : magnitude)
    }

    private static func parseAnyStyle(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var scanner = ByteScanner(bytes)
        guard let year = scanner.digits(4), scanner.consume(UInt8(ascii: "-")),
              let month = scanner.digits(2), scanner.consume(UInt8(ascii: "-")),
              let day = scanner.digits(2),
              month >= 1, month <= 12, day >= 1, day <= CivilDate.daysInMonth(year: year, month: month)
        else { return nil }
        if scanner.isAtEnd {
            return makeTimestamp(year: year, month: month, day: day, millisecondsOfDay: 0, offset: nil)
        }
        let separator = scanner.current
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
        else { return nil }
        scanner.index += 1
        guard ByteScanner.isASCIIDigit(scanner.current),
              let millisecondsOfDay = scanner.timeOfDayMilliseconds() else { return nil }
        scanner.skipSpaces()
        if scanner.isAtEnd {
            return makeTimestamp(year: year, month: month, day: day, millisecondsOfDay: millisecondsOfDay, offset: nil)
        }
        guard let offset = scanner.utcOffsetSeconds(), scanner.isAtEnd else { return nil }
        return makeTimestamp(year: year, month: month, day: day, millisecondsOfDay: millisecondsOfDay, offset: offset)
    }

    /// The instants a date may stand for: the UTC years 0000 to 9999, which every store can hold
    /// (`9999-12-31T23:59:59-23:59` is in the year 10000 in UTC; a store refused it after the
    /// push was answered 200).
    public static let instants: Range<Int64> = -62_167_219_200_000..<253_402_300_800_000

    @inline(__always)
    private static func makeTimestamp(year: Int, month: Int, day: Int, millisecondsOfDay: Int, offset: Int?) -> Timestamp? {
        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        let local = Int64(days) * 86_400_000 + Int64(millisecondsOfDay)
        guard let offset else { return Timestamp(epochMilliseconds: local, utcOffsetSeconds: nil) }
        let instant = local - Int64(offset) * 1000
        guard instants.contains(instant) else { return nil }
        return Timestamp(epochMilliseconds: instant, utcOffsetSeconds: Int32(offset))
    }
}
