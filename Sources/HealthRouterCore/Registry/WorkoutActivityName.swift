/// Workout activity types under their spellings: HealthKit's enum case as export.xml
/// writes it (`HKWorkoutActivityTypeTraditionalStrengthTraining`), Pulso's Swift case
/// name (`traditionalStrengthTraining`), and Health Auto Export's display name
/// (`Traditional Strength Training`).
///
/// The rules are textual, so types HealthKit adds later convert too: drop the
/// `HKWorkoutActivityType` prefix, join the words capitalised (`Mind and Body` →
/// `MindAndBody`), lower-case the first letter.
/// Pulso's `activity_<n>` for unknown raw values stays as it is.
public enum WorkoutActivityName {
    /// Pulso's name (`running`) for any spelling; idempotent.
    public static func pulsoName(_ name: String) -> String {
        var rest = Substring(name)
        if rest.hasPrefix(healthKitPrefix) { rest = rest.dropFirst(healthKitPrefix.count) }
        guard let first = rest.first, first.isUppercase || rest.contains(" ") else { return String(rest) }
        let words = rest.split(separator: " ")
        // Each later word capitalised: Health Auto Export's `Mind and Body` is HealthKit's `MindAndBody`.
        return words.first.map { $0.prefix(1).lowercased() + $0.dropFirst()
            + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() } ?? ""
    }

    /// HealthKit's name (`HKWorkoutActivityTypeRunning`) for any spelling; idempotent.
    /// Pulso's `activity_<n>` stays as it is.
    public static func healthKitName(_ name: String) -> String {
        if name.hasPrefix(healthKitPrefix) || name.hasPrefix("activity_") { return name }
        let pulso = pulsoName(name)
        guard let first = pulso.first else { return name }
        return healthKitPrefix + first.uppercased() + pulso.dropFirst()
    }

    private static let healthKitPrefix = "HKWorkoutActivityType"
}
