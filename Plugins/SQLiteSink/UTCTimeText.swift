import HealthRouterCore

/// The SQLite sink's time text: ISO 8601 in UTC at fixed millisecond width,
/// `2024-01-05T21:07:03.000Z` (what SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')` and
/// JavaScript's `toISOString()` write), so that text order is time order.
enum UTCTimeText {
    /// Bytes of one formatted instant.
    static let length = 24

    /// Writes `epochMilliseconds` into `buffer` (at least `length` bytes). Returns false,
    /// writing nothing, for instants outside the years 0000–9999.
    static func write(_ epochMilliseconds: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        // Floor division, so instants before 1970 land on the right day and millisecond.
        var days = epochMilliseconds / 86_400_000
        var millisecondOfDay = epochMilliseconds % 86_400_000
        if millisecondOfDay < 0 { millisecondOfDay += 86_400_000; days -= 1 }
        let date = CivilDate(daysSinceEpoch: Int(days))
        let (year, month, day) = (date.year, date.month, date.day)
        guard year >= 0, year <= 9999 else { return false }
        let secondOfDay = Int(millisecondOfDay / 1000)
        let millisecond = Int(millisecondOfDay % 1000)

        func put(_ value: Int, _ at: Int, _ width: Int) {
            var rest = value
            for i in stride(from: at + width - 1, through: at, by: -1) {
                buffer[i] = UInt8(48 + rest % 10)
                rest /= 10
            }
        }
        put(Int(year), 0, 4); buffer[4] = UInt8(ascii: "-")
        put(month, 5, 2); buffer[7] = UInt8(ascii: "-")
        put(day, 8, 2); buffer[10] = UInt8(ascii: "T")
        put(secondOfDay / 3600, 11, 2); buffer[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, 14, 2); buffer[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, 17, 2); buffer[19] = UInt8(ascii: ".")
        put(millisecond, 20, 3); buffer[23] = UInt8(ascii: "Z")
        return true
    }

    /// `epochMilliseconds` as text, or nil outside the years 0000–9999.
    static func string(_ epochMilliseconds: Int64) -> String? {
        var bytes = [UInt8](repeating: 0, count: length)
        let ok = bytes.withUnsafeMutableBufferPointer { write(epochMilliseconds, into: $0) }
        return ok ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
