/// A span of time as a config writes it: `500ms`, `2s`, `10m`, `1h`, `30d`, `1w`, or a
/// sum of these (`1h30m`); fractions are allowed (`1.5h`); a bare `0` is zero.
/// A number without a unit is an error, because `30` could mean anything.
public struct ConfigDuration: Sendable, Hashable, Comparable, Decodable, CustomStringConvertible {
    /// The length in seconds.
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    public static func milliseconds(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value / 1000) }
    public static func seconds(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value) }
    public static func minutes(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value * 60) }
    public static func hours(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value * 3600) }
    public static func days(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value * 86_400) }
    public static func weeks(_ value: Double) -> ConfigDuration { ConfigDuration(seconds: value * 604_800) }

    /// The longest duration a config may give: 100 years (36525d). Anything longer is an
    /// error, so that every use (seconds as 32 bits for libmicrohttpd, milliseconds as 64)
    /// can hold it.
    public static let maximum = ConfigDuration.days(36_525)

    /// The units a duration may use, longest suffix first so that `ms` wins over `m`.
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800),
    ]

    /// Parses `500ms`, `2s`, `10m`, `1h`, `30d`, `1w`, `1h30m`, `1.5h`, `0`; nil for anything else.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8.drop { $0 == UInt8(ascii: " ") }.reversed().drop { $0 == UInt8(ascii: " ") }.reversed())
        if bytes == [UInt8(ascii: "0")] {
            self.init(seconds: 0)
            return
        }
        guard !bytes.isEmpty else { return nil }
        var total = 0.0
        var index = 0
        while index < bytes.count {
            let numberStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
                index += 1
            }
            guard index > numberStart, let number = Double(String(decoding: bytes[numberStart..<index], as: UTF8.self)) else { return nil }
            let unitStart = index
            while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) { index += 1 }
            let suffix = String(decoding: bytes[unitStart..<index], as: UTF8.self)
            guard let unit = Self.units.first(where: { $0.suffix == suffix }) else { return nil }
            total += number * unit.seconds
        }
        self.init(seconds: total)
    }

    public init(from decoder: any Decoder) throws {
        // A mapping or list is reported as "expected a duration", not "expected a string".
        let text = (try? decoder.singleValueContainer().decode(String.self)) ?? ""
        guard let parsed = ConfigDuration(parsing: text) else {
            let found = decoder.configNode?.kindDescription ?? "\"\(text)\""
            let isBareNumber = Double(text) != nil
            throw ConfigError(at: decoder.configNode?.location, path: decoder.configPath ?? "",
                              message: "expected a duration (500ms, 2s, 10m, 1h, 30d, 1w), found \(found)",
                              suggestion: isBareNumber ? "add a unit, e.g. '\(text)s' or '\(text)d'" : nil)
        }
        guard parsed <= .maximum else {
            throw Self.tooLong(text, decoder: decoder, suggestion: nil)
        }
        self = parsed
    }

    /// The error for a duration longer than `maximum`, at the decoder's key.
    static func tooLong(_ text: String, decoder: any Decoder, suggestion: String?) -> ConfigError {
        ConfigError(at: decoder.configNode?.location, path: decoder.configPath ?? "",
                    message: "\(text) is longer than the longest duration a config may give, 100 years (36525d)",
                    suggestion: suggestion)
    }

    /// The length as a Swift `Duration`.
    public var duration: Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    public static func < (a: ConfigDuration, b: ConfigDuration) -> Bool { a.seconds < b.seconds }

    /// The shortest exact form in one unit (`30d`, `90m`, `1500ms`), days before weeks.
    public var description: String {
        if seconds == 0 { return "0s" }
        for (suffix, unit) in [("d", 86_400.0), ("h", 3600), ("m", 60), ("s", 1), ("ms", 0.001)] {
            let count = seconds / unit
            if count == count.rounded(), abs(count) < 1e15 { return "\(Int64(count))\(suffix)" }
        }
        return "\(seconds)s"
    }
}
