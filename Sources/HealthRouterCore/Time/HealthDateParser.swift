/// Parses the date strings health data arrives with, straight from bytes, without
/// Foundation's DateFormatter (which manages about 20 k dates/s on Linux).
///
/// Accepted: export.xml's `yyyy-MM-dd HH:mm:ss ±hhmm`.
/// (Further variants: see the tests.)
public enum HealthDateParser {
    /// Parses `bytes`; nil when they are not a date this parser knows.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        // yyyy-MM-dd HH:mm:ss ±hhmm
        guard bytes.count >= 25 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var value = 0
            for i in at..<(at + count) {
                let c = bytes[i]
                guard c >= 48 && c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            return value
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              let offsetHours = digits(21, 2), let offsetMinutes = digits(23, 2) else { return nil }
        let sign: Int = bytes[20] == UInt8(ascii: "-") ? -1 : 1
        let offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Timestamp(epochSeconds: local - Int64(offset), utcOffsetSeconds: Int32(offset))
    }

    /// Parses `text`; nil when it is not a date this parser knows.
    public static func parse(_ text: String) -> Timestamp? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
