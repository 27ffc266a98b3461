/// How long the journal keeps entries, counted from when it took them (`journal.retain`): a
/// duration (`30d`), or `forever`. None is pruned before every sink has passed it, whatever its
/// routes select. Keeping entries makes a later backfill of a sink a cursor reset instead of a re-import.
public enum RetainPolicy: Sendable, Hashable, Decodable, CustomStringConvertible {
    case forever
    case duration(ConfigDuration)

    /// 30 days.
    public static let `default` = RetainPolicy.duration(.days(30))

    /// Parses `forever` or a duration; nil for anything else.
    public init?(parsing text: String) {
        if text == "forever" {
            self = .forever
        } else if let duration = ConfigDuration(parsing: text) {
            self = .duration(duration)
        } else {
            return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = (try? decoder.singleValueContainer().decode(String.self)) ?? ""
        guard let parsed = RetainPolicy(parsing: text) else {
            let found = decoder.configNode?.kindDescription ?? "\"\(text)\""
            throw ConfigError(at: decoder.configNode?.location, path: decoder.configPath ?? "",
                              message: "expected a duration (30d, 12h, 1w) or 'forever', found \(found)",
                              suggestion: Double(text) != nil ? "add a unit, e.g. '\(text)d'" : nil)
        }
        if case .duration(let duration) = parsed, duration > .maximum {
            throw ConfigDuration.tooLong(text, decoder: decoder, suggestion: "to keep entries for good, write 'forever'")
        }
        self = parsed
    }

    /// The retention in seconds; nil for `forever`.
    public var seconds: Double? {
        if case .duration(let duration) = self { duration.seconds } else { nil }
    }

    public var description: String {
        switch self {
        case .forever: "forever"
        case .duration(let duration): duration.description
        }
    }
}
