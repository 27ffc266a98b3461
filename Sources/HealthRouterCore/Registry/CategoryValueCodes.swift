/// HealthKit's raw integer of a category value, by the value's HealthKit name
/// (`HKCategoryValueSleepAnalysisAsleepCore` → 3), as `HKCategorySample.value` holds it and as
/// stores that keep the integer (health4ai's `healthkit_metrics.value`) want it.
///
/// Every category enumeration HealthKit defines (the names are unique across them, each
/// prefixed by its enumeration), the deprecated spellings that share a raw value
/// (`…SleepAnalysisAsleep` is 1, `…OvulationTestResultPositive` is 2), `HKCategoryValueNotApplicable`
/// (0: the value of categories without one, such as mindful sessions), and Pulso's `value_<n>`
/// for a case it has no name for. Nil for anything else.
public enum CategoryValueCodes {
    public static func code(_ name: String) -> Int? {
        if let code = codes[name] { return code }
        if name.hasPrefix("value_"), let code = Int(name.dropFirst(6)) { return code }
        return nil
    }

    /// HealthKit's current name of raw value `code` of the category `type` whose values'
    /// enumeration is named after it (`HKCategoryTypeIdentifierSleepAnalysis`, 0 →
    /// `HKCategoryValueSleepAnalysisInBed`; 1 → `…AsleepUnspecified`, not the deprecated `…Asleep`),
    /// as exports of iOS 8 and 9 wrote values: as numbers. Nil for other types and codes.
    public static func name(code: Int, type: String) -> String? {
        let prefix = "HKCategoryTypeIdentifier"
        guard type.hasPrefix(prefix) else { return nil }
        return names[String(type.dropFirst(prefix.count))]?[code]
    }

    /// The names by enumeration (`SleepAnalysis`) and raw value: the first one listed of a value.
    private static let names: [String: [Int: String]] = {
        var names: [String: [Int: String]] = [:]
        for (prefix, cases) in enumerations {
            for (name, code) in cases where names[prefix]?[code] == nil {
                names[prefix, default: [:]][code] = "HKCategoryValue" + prefix + name
            }
        }
        return names
    }()

    private static let codes: [String: Int] = {
        var codes = ["HKCategoryValueNotApplicable": 0]
        for (prefix, cases) in enumerations {
            for (name, code) in cases { codes["HKCategoryValue" + prefix + name] = code }
        }
        return codes
    }()

    /// Each enumeration's cases and raw values, the current name of a value first.
    private static let enumerations: [(String, [(String, Int)])] = {
        var enumerations: [(String, [(String, Int)])] = []
        func add(_ prefix: String, _ cases: [(String, Int)]) { enumerations.append((prefix, cases)) }
        add("SleepAnalysis", [("InBed", 0), ("AsleepUnspecified", 1), ("Asleep", 1), ("Awake", 2), ("AsleepCore", 3),
                              ("AsleepDeep", 4), ("AsleepREM", 5)])
        add("AppleStandHour", [("Stood", 0), ("Idle", 1)])
        add("CervicalMucusQuality", [("Dry", 1), ("Sticky", 2), ("Creamy", 3), ("Watery", 4), ("EggWhite", 5)])
        add("MenstrualFlow", [("Unspecified", 1), ("Light", 2), ("Medium", 3), ("Heavy", 4), ("None", 5)])
        add("VaginalBleeding", [("Unspecified", 1), ("Light", 2), ("Medium", 3), ("Heavy", 4), ("None", 5)])
        add("OvulationTestResult", [("Negative", 1), ("LuteinizingHormoneSurge", 2), ("Positive", 2),
                                    ("Indeterminate", 3), ("EstrogenSurge", 4)])
        add("PregnancyTestResult", [("Negative", 1), ("Positive", 2), ("Indeterminate", 3)])
        add("ProgesteroneTestResult", [("Negative", 1), ("Positive", 2), ("Indeterminate", 3)])
        add("ContraceptiveType", [("Unspecified", 1), ("Implant", 2), ("Injection", 3), ("IntrauterineDevice", 4),
                                  ("IntravaginalRing", 5), ("Oral", 6), ("Patch", 7)])
        add("Severity", [("Unspecified", 0), ("NotPresent", 1), ("Mild", 2), ("Moderate", 3), ("Severe", 4)])
        add("Presence", [("Present", 0), ("NotPresent", 1)])
        add("AppetiteChanges", [("Unspecified", 0), ("NoChange", 1), ("Decreased", 2), ("Increased", 3)])
        add("AppleWalkingSteadinessEvent", [("InitialLow", 1), ("InitialVeryLow", 2), ("RepeatLow", 3), ("RepeatVeryLow", 4)])
        add("AudioExposureEvent", [("LoudEnvironment", 1)])
        add("EnvironmentalAudioExposureEvent", [("MomentaryLimit", 1)])
        add("HeadphoneAudioExposureEvent", [("SevenDayLimit", 1)])
        add("LowCardioFitnessEvent", [("LowFitness", 1)])
        return enumerations
    }()
}
