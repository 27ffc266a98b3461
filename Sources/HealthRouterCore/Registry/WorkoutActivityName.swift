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

    /// HealthKit's name for `name` when it is one of `HKWorkoutActivityType`'s cases in any of the
    /// spellings above (`Traditional Strength Training`, `running`); nil for any other name (a
    /// display name in another language, `Gehen`).
    public static func knownHealthKitName(_ name: String) -> String? {
        let pulso = pulsoName(name)
        return knownActivities.contains(pulso) ? healthKitName(pulso) : nil
    }

    /// `HKWorkoutActivityType`'s cases (iOS 18), as Pulso names them.
    public static let knownActivities: Set<String> = [
        "americanFootball", "archery", "australianFootball", "badminton", "barre", "baseball", "basketball",
        "bowling", "boxing", "cardioDance", "climbing", "cooldown", "coreTraining", "cricket", "crossCountrySkiing",
        "crossTraining", "curling", "cycling", "dance", "danceInspiredTraining", "discSports", "downhillSkiing",
        "elliptical", "equestrianSports", "fencing", "fishing", "fitnessGaming", "flexibility",
        "functionalStrengthTraining", "golf", "gymnastics", "handball", "handCycling", "highIntensityIntervalTraining",
        "hiking", "hockey", "hunting", "jumpRope", "kickboxing", "lacrosse", "martialArts", "mindAndBody",
        "mixedCardio", "mixedMetabolicCardioTraining", "other", "paddleSports", "pickleball", "pilates", "play",
        "preparationAndRecovery", "racquetball", "rowing", "rugby", "running", "sailing", "skatingSports",
        "snowboarding", "snowSports", "soccer", "socialDance", "softball", "squash", "stairClimbing", "stairs",
        "stepTraining", "surfingSports", "swimBikeRun", "swimming", "tableTennis", "taiChi", "tennis",
        "trackAndField", "traditionalStrengthTraining", "transition", "underwaterDiving", "volleyball", "walking",
        "waterFitness", "waterPolo", "waterSports", "wheelchairRunPace", "wheelchairWalkPace", "wrestling", "yoga",
    ]

    private static let healthKitPrefix = "HKWorkoutActivityType"
}
