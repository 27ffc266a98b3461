/// Writes instants as text, fast, without Foundation's formatters.
///
/// Every form writes the wall-clock time in the timestamp's own `utcOffsetSeconds`
/// (UTC when it is nil). An offset that is not a whole number of minutes (historic
/// local mean time) is truncated to minutes, and the wall-clock time is computed with
/// the truncated offset, so the text always names the same instant to the minute
/// offset written. Years outside 0000–9999 are written with as many digits as they
/// need (and a leading `-` before year 0).
public enum TimestampFormatter {
    /// ISO 8601 at second precision with the original offset (`2026-07-06T01:12:00+01:00`),
    /// `Z` when the offset is zero, UTC when unknown; milliseconds are written only when
    /// non-zero (`…T01:12:00.250+01:00`).
    public static func iso8601(_ timestamp: Timestamp) -> String {
        render { writeISO8601(timestamp, to: $0) }
    }

    /// The local calendar day of `timestamp` in its own offset (UTC when unknown), `yyyy-MM-dd`.
    public static func date(_ timestamp: Timestamp) -> String {
        render { writeDate(timestamp, to: $0) }
    }

    /// export.xml's form, `yyyy-MM-dd HH:mm:ss ±hhmm` (`2023-01-01 08:00:00 -0800`):
    /// seconds precision (milliseconds are dropped), `+0000` when the offset is unknown.
    public static func exportStyle(_ timestamp: Timestamp) -> String {
        render { writeExportStyle(timestamp, to: $0) }
    }

    /// Appends `iso8601(timestamp)` as UTF-8 to `bytes` (for byte-level encoders).
    public static func appendISO8601(_ timestamp: Timestamp, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            let count = writeISO8601(timestamp, to: buffer.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// No form is longer: a 10-digit signed year plus 30 bytes.
    private static let maximumLength = 48

    private static func render(_ write: (UnsafeMutablePointer<UInt8>) -> Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            let count = write(buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self)
        }
    }

    /// The wall-clock fields of an instant in its (minute-truncated) offset.
    private struct LocalTime {
        var date: CivilDate
        var hour: Int
        var minute: Int
        var second: Int
        var millisecond: Int
        /// Offset in whole minutes; nil when the timestamp has none.
        var offsetMinutes: Int?

        init(_ timestamp: Timestamp) {
            let offsetMinutes = timestamp.utcOffsetSeconds.map { Int($0) / 60 }
            self.offsetMinutes = offsetMinutes
            let local = timestamp.epochMilliseconds + Int64(offsetMinutes ?? 0) * 60_000
            var days = local / 86_400_000
            var millisecondsOfDay = local % 86_400_000
            if millisecondsOfDay < 0 {
                days -= 1
                millisecondsOfDay += 86_400_000
            }
            let ms = Int(millisecondsOfDay)
            date = CivilDate(daysSinceEpoch: Int(days))
            hour = ms / 3_600_000
            minute = ms / 60_000 % 60
            second = ms / 1000 % 60
            millisecond = ms % 1000
        }
    }

    private static func writeISO8601(_ timestamp: Timestamp, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let local = LocalTime(timestamp)
        var at = writeDate(local.date, to: out)
        out[at] = UInt8(ascii: "T")
        at += 1
        at += writeClock(local, to: out + at)
        if local.millisecond != 0 {
            out[at] = UInt8(ascii: ".")
            writeDigits(local.millisecond, count: 3, to: out + at + 1)
            at += 4
        }
        guard let offset = local.offsetMinutes, offset != 0 else {
            out[at] = UInt8(ascii: "Z")
            return at + 1
        }
        out[at] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
        writeDigits(abs(offset) / 60, count: 2, to: out + at + 1)
        out[at + 3] = UInt8(ascii: ":")
        writeDigits(abs(offset) % 60, count: 2, to: out + at + 4)
        return at + 6
    }

    private static func writeExportStyle(_ timestamp: Timestamp, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let local = LocalTime(timestamp)
        var at = writeDate(local.date, to: out)
        out[at] = UInt8(ascii: " ")
        at += 1
        at += writeClock(local, to: out + at)
        let offset = local.offsetMinutes ?? 0
        out[at] = UInt8(ascii: " ")
        out[at + 1] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
        writeDigits(abs(offset) / 60, count: 2, to: out + at + 2)
        writeDigits(abs(offset) % 60, count: 2, to: out + at + 4)
        return at + 6
    }

    private static func writeDate(_ timestamp: Timestamp, to out: UnsafeMutablePointer<UInt8>) -> Int {
        writeDate(LocalTime(timestamp).date, to: out)
    }

    /// `yyyy-MM-dd`; returns the bytes written.
    private static func writeDate(_ date: CivilDate, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var at = 0
        if date.year >= 0 && date.year <= 9999 {
            writeDigits(date.year, count: 4, to: out)
            at = 4
        } else {
            if date.year < 0 {
                out[0] = UInt8(ascii: "-")
                at = 1
            }
            let magnitude = abs(date.year)
            var count = 4
            var limit = 10_000
            while magnitude >= limit && count < 10 {
                count += 1
                limit *= 10
            }
            writeDigits(magnitude, count: count, to: out + at)
            at += count
        }
        out[at] = UInt8(ascii: "-")
        writeDigits(date.month, count: 2, to: out + at + 1)
        out[at + 3] = UInt8(ascii: "-")
        writeDigits(date.day, count: 2, to: out + at + 4)
        return at + 6
    }

    /// `HH:mm:ss`; returns 8.
    private static func writeClock(_ local: LocalTime, to out: UnsafeMutablePointer<UInt8>) -> Int {
        writeDigits(local.hour, count: 2, to: out)
        out[2] = UInt8(ascii: ":")
        writeDigits(local.minute, count: 2, to: out + 3)
        out[5] = UInt8(ascii: ":")
        writeDigits(local.second, count: 2, to: out + 6)
        return 8
    }

    /// Writes the `count` lowest decimal digits of a non-negative `value`, zero-padded.
    @inline(__always)
    private static func writeDigits(_ value: Int, count: Int, to out: UnsafeMutablePointer<UInt8>) {
        var rest = value
        var position = count - 1
        while position >= 0 {
            out[position] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
            position -= 1
        }
    }
}
