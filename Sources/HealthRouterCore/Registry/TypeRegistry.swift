/// The table of known types (DESIGN.md §3). Unknown types are not an error: they
/// pass through untouched, in the group `other`.
public enum TypeRegistry {
    /// Every known type, grouped and ordered as `healthrouter types` prints them.
    public static let all: [HealthType] = [
        HealthType(identifier: "HKCategoryTypeIdentifierSleepAnalysis", key: "sleepAnalysis",
                   haeNames: ["sleep_analysis"], group: "sleep", kind: .category),
        HealthType(identifier: "HKWorkoutTypeIdentifier", key: "workout", group: "workouts", kind: .workout),
        HealthType(identifier: "HKQuantityTypeIdentifierHeartRate", key: "heartRate", haeNames: ["heart_rate"],
                   group: "cardio", kind: .quantity, canonicalUnit: "count/min"),
        HealthType(identifier: "HKQuantityTypeIdentifierStepCount", key: "stepCount", haeNames: ["step_count"],
                   group: "activity", kind: .quantity, canonicalUnit: "count"),
    ]

    private static let byIdentifier: [String: HealthType] = Dictionary(all.map { ($0.identifier, $0) }) { a, _ in a }
    private static let byKey: [String: HealthType] = Dictionary(all.compactMap { t in t.key.map { ($0, t) } }) { a, _ in a }

    /// The group of a type the registry does not know.
    public static let unknownGroup = "other"

    /// The type with this HealthKit identifier.
    public static func type(identifier: String) -> HealthType? { byIdentifier[identifier] }

    /// The type with this Pulso key.
    public static func type(key: String) -> HealthType? { byKey[key] }

    /// Every group name, in registry order.
    public static var groups: [String] {
        var seen = Set<String>()
        return all.map(\.group).filter { seen.insert($0).inserted } + [unknownGroup]
    }
}
