/// Category values under their two spellings: HealthKit's (`HKCategoryValueSleepAnalysisAsleepCore`,
/// as export.xml writes them) and Pulso's (`asleepCore`).
///
/// Mapped (Pulso defines names only for these two types; every other value, such as
/// `HKCategoryValueNotApplicable` or Pulso's `value_<n>` for unknown cases, is returned unchanged):
///
/// | type | HealthKit | Pulso |
/// |---|---|---|
/// | sleep analysis | `HKCategoryValueSleepAnalysisInBed` | `inBed` |
/// | | `HKCategoryValueSleepAnalysisAsleepUnspecified` | `asleepUnspecified` |
/// | | `HKCategoryValueSleepAnalysisAsleep` (before iOS 16) | `asleepUnspecified` |
/// | | `HKCategoryValueSleepAnalysisAwake` | `awake` |
/// | | `HKCategoryValueSleepAnalysisAsleepCore` | `asleepCore` |
/// | | `HKCategoryValueSleepAnalysisAsleepDeep` | `asleepDeep` |
/// | | `HKCategoryValueSleepAnalysisAsleepREM` | `asleepREM` |
/// | stand hour | `HKCategoryValueAppleStandHourStood` | `stood` |
/// | | `HKCategoryValueAppleStandHourIdle` | `idle` |
///
/// `Asleep` is the pre-iOS 16 name of raw value 1, which iOS 16 renamed `AsleepUnspecified`:
/// both are the same value, so both read as `asleepUnspecified`, and `asleepUnspecified`
/// maps back to the current name. Health Auto Export's sleep values (`In Bed`, `Asleep`,
/// `Unspecified`, `Awake`, `Core`, `Deep`, `REM`) are also read, as Pulso names.
///
/// `healthKitName` reads HealthKit and HAE spellings too and gives the current HealthKit
/// name (`…Asleep` becomes `…AsleepUnspecified`). `type` may be the HealthKit identifier,
/// the short key or the HAE name. Both functions are idempotent (applying one twice is
/// applying it once), and `healthKitName(pulsoName(v))` is `v` for every current HealthKit name.
public enum CategoryValueNames {
    /// Pulso's name for a category value of `type`; unknown names are returned unchanged.
    public static func pulsoName(_ value: String, type: String) -> String {
        switch family(of: type) {
        case .sleepAnalysis: sleepToPulso[value] ?? value
        case .appleStandHour: standHourToPulso[value] ?? value
        case nil: value
        }
    }

    /// Whether Pulso sends no `value` for `type` (`mindfulSession`, `sexualActivity`: the interval
    /// is the data, and HealthKit's only value is `HKCategoryValueNotApplicable`).
    public static func pulsoOmitsValue(type: String) -> Bool {
        switch type {
        case "HKCategoryTypeIdentifierMindfulSession", "mindfulSession",
             "HKCategoryTypeIdentifierSexualActivity", "sexualActivity": true
        default: false
        }
    }

    /// HealthKit's name for a Pulso category value of `type`; unknown names are returned unchanged.
    public static func healthKitName(_ value: String, type: String) -> String {
        switch family(of: type) {
        case .sleepAnalysis: sleepToHealthKit[sleepToPulso[value] ?? value] ?? value
        case .appleStandHour: standHourToHealthKit[value] ?? value
        case nil: value
        }
    }

    private enum Family { case sleepAnalysis, appleStandHour }

    private static func family(of type: String) -> Family? {
        switch type {
        case "HKCategoryTypeIdentifierSleepAnalysis", "sleepAnalysis", "sleep_analysis": .sleepAnalysis
        case "HKCategoryTypeIdentifierAppleStandHour", "appleStandHour", "apple_stand_hour": .appleStandHour
        default: nil
        }
    }

    private static let sleepToPulso: [String: String] = [
        "HKCategoryValueSleepAnalysisInBed": "inBed",
        "HKCategoryValueSleepAnalysisAsleepUnspecified": "asleepUnspecified",
        "HKCategoryValueSleepAnalysisAsleep": "asleepUnspecified",
        "HKCategoryValueSleepAnalysisAwake": "awake",
        "HKCategoryValueSleepAnalysisAsleepCore": "asleepCore",
        "HKCategoryValueSleepAnalysisAsleepDeep": "asleepDeep",
        "HKCategoryValueSleepAnalysisAsleepREM": "asleepREM",
        // Health Auto Export's unaggregated sleep values.
        "In Bed": "inBed",
        "Asleep": "asleepUnspecified",
        "Unspecified": "asleepUnspecified",
        "Awake": "awake",
        "Core": "asleepCore",
        "Deep": "asleepDeep",
        "REM": "asleepREM",
    ]

    private static let sleepToHealthKit: [String: String] = [
        "inBed": "HKCategoryValueSleepAnalysisInBed",
        "asleepUnspecified": "HKCategoryValueSleepAnalysisAsleepUnspecified",
        "awake": "HKCategoryValueSleepAnalysisAwake",
        "asleepCore": "HKCategoryValueSleepAnalysisAsleepCore",
        "asleepDeep": "HKCategoryValueSleepAnalysisAsleepDeep",
        "asleepREM": "HKCategoryValueSleepAnalysisAsleepREM",
    ]

    private static let standHourToPulso: [String: String] = [
        "HKCategoryValueAppleStandHourStood": "stood",
        "HKCategoryValueAppleStandHourIdle": "idle",
    ]

    private static let standHourToHealthKit: [String: String] = [
        "stood": "HKCategoryValueAppleStandHourStood",
        "idle": "HKCategoryValueAppleStandHourIdle",
    ]
}
