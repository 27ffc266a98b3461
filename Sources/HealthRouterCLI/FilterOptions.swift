import Foundation
import HealthRouterCore

/// `--since DATE`, `--until DATE` and `--types T,…` of `dump`, `backfill` and `migrate`.
enum FilterOptions {
    static let values: Set<String> = ["--since", "--until", "--types"]

    static let help = """
          --since DATE    only samples that start at or after DATE (2024-01-31, 2024-01-31T08:00:00+01:00)
          --until DATE    only samples that start before DATE
          --types T,…     only these types: short keys (heartRate), identifiers, groups (sleep), globs
                          (HKQuantityTypeIdentifier*), as in routes (an unknown identifier selects that
                          type alone; a name close to a known one is refused as a typo); tombstones
                          always pass
        """

    static func filter(_ arguments: CommandLineArguments, command: String) throws -> SampleFilter {
        func date(_ option: String) throws -> Timestamp? {
            guard let text = arguments.values[option] else { return nil }
            guard let parsed = HealthDateParser.parse(text) else {
                throw UsageError("\(option) takes a date such as 2024-01-31 or 2024-01-31T08:00:00+01:00, not '\(text)'",
                                 command: command)
            }
            return parsed
        }
        let types = (arguments.values["--types"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // `--types ""` (an empty shell variable) selecting everything would dump, or write again, all.
        if arguments.values["--types"] != nil, types.isEmpty {
            throw UsageError("--types names no type: give one or more, comma-separated (heartRate,stepCount), "
                                + "or leave the option out for every type", command: command)
        }
        let filter = SampleFilter(since: try date("--since"), until: try date("--until"), types: types)
        if let since = filter.since, let until = filter.until, since >= until {
            throw UsageError("--since \(arguments.values["--since"] ?? "") is not before --until \(arguments.values["--until"] ?? ""): "
                                + "no sample could match", command: command)
        }
        // As in routes: a malformed selector is an error; one that names no known type selects a type
        // with exactly that identifier (unknown types pass through healthrouter), with a warning.
        if let malformed = filter.malformedTypes.first {
            throw UsageError("--types: '\(malformed)' is not a type selector: use a HealthKit identifier "
                                + "(HKQuantityTypeIdentifierHeartRate), a short key (heartRate), a group (sleep) or a glob "
                                + "(HKQuantity*); see healthrouter types", command: command)
        }
        // A name close to a known one is taken for a typo of it (on the command line, where it is
        // fixed at once), not for an unknown type.
        for unknown in filter.unknownTypes {
            let message = "--types: '\(unknown)' is no known type, short key or group"
            // A newer identifier that extends a known one by a word (`…HeartRateVariabilityRMSSD`) is no
            // typo of it; one that adds a lower-case letter (`…StepCounts`) is.
            if let guess = NameSuggester.closest(to: unknown, among: TypeRegistry.groups + TypeRegistry.all.compactMap(\.key)
                                                  + TypeRegistry.all.map(\.identifier)),
               !(guess.hasPrefix("HK") && unknown.hasPrefix(guess) && unknown.dropFirst(guess.count).first?.isUppercase == true) {
                throw UsageError(message + " (did you mean '\(guess)'?); see healthrouter types", command: command)
            }
            NoticeOutput(arguments: arguments).write("healthrouter: warning: \(message); it selects only a type with exactly this identifier",
                                                     level: .warning)
        }
        return filter
    }

    /// The filter in words, for summaries: "" when it takes everything.
    static func describe(_ filter: SampleFilter) -> String {
        var parts: [String] = []
        if let since = filter.since { parts.append("since \(TimestampFormatter.iso8601(since))") }
        if let until = filter.until { parts.append("until \(TimestampFormatter.iso8601(until))") }
        if !filter.types.isEmpty { parts.append("types \(filter.types.joined(separator: ","))") }
        return parts.joined(separator: ", ")
    }
}
