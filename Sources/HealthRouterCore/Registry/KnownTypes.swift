/// The rows of `TypeRegistry.all`, by group. Each row names the type once; the
/// HealthKit identifier and short key are derived from HealthKit's naming
/// (`HKQuantityTypeIdentifier` + `HeartRate`, key `heartRate`) unless given.
///
/// Canonical units are Pulso's where Pulso has the type (`count/min`, `%` as 0–100,
/// `°C`, `mL/(kg·min)`, `kcal/hr·kg`); for the others they follow the same habits:
/// metres, kilocalories, minutes for durations, metres per second, `°C`, `mmHg`,
/// `mg/dL`, and HealthKit's own nutrition units (`g`, `mg`, `mcg`).
enum KnownTypes {
    static let all: [HealthType] = sleep + workouts + activity + cardio + vitals + body + mobility + audio
        + nutrition + lifestyle + reproductive + symptoms + clinical

    // MARK: Groups

    static let sleep: [HealthType] = [
        category("SleepAnalysis", hae: ["sleep_analysis"], group: "sleep", pulso: true),
        quantity("AppleSleepingWristTemperature", hae: ["apple_sleeping_wrist_temperature"], group: "sleep",
                 unit: "°C", pulso: true),
        quantity("AppleSleepingBreathingDisturbances", hae: ["breathing_disturbances"], group: "sleep",
                 unit: "count", pulso: true),
        category("SleepApneaEvent", group: "sleep"),
        HealthType(identifier: "HKDataTypeSleepDurationGoal", group: "sleep", kind: .quantity, canonicalUnit: "hr"),
    ]

    static let workouts: [HealthType] = [
        HealthType(identifier: "HKWorkoutTypeIdentifier", key: "workout", group: "workouts", kind: .workout,
                   isInPulsoProtocol: true),
        HealthType(identifier: "HKWorkoutRouteTypeIdentifier", key: "workoutRoute", group: "workouts", kind: .other),
        quantity("WorkoutEffortScore", group: "workouts", unit: "appleEffortScore"),
        quantity("EstimatedWorkoutEffortScore", group: "workouts", unit: "appleEffortScore"),
    ]

    static let activity: [HealthType] = [
        quantity("StepCount", hae: ["step_count"], group: "activity", unit: "count", pulso: true),
        quantity("ActiveEnergyBurned", hae: ["active_energy"], group: "activity", unit: "kcal", pulso: true),
        quantity("BasalEnergyBurned", hae: ["basal_energy_burned"], group: "activity", unit: "kcal", pulso: true),
        quantity("PhysicalEffort", hae: ["physical_effort"], group: "activity", unit: "kcal/hr·kg", pulso: true),
        quantity("AppleExerciseTime", hae: ["apple_exercise_time"], group: "activity", unit: "min", pulso: true),
        quantity("AppleStandTime", hae: ["apple_stand_time"], group: "activity", unit: "min", pulso: true),
        quantity("AppleMoveTime", hae: ["apple_move_time"], group: "activity", unit: "min"),
        category("AppleStandHour", hae: ["apple_stand_hour"], group: "activity", pulso: true),
        quantity("FlightsClimbed", hae: ["flights_climbed"], group: "activity", unit: "count", pulso: true),
        quantity("DistanceWalkingRunning", hae: ["walking_running_distance"], group: "activity", unit: "m", pulso: true),
        quantity("DistanceCycling", hae: ["cycling_distance"], group: "activity", unit: "m", pulso: true),
        quantity("DistanceSwimming", hae: ["swimming_distance"], group: "activity", unit: "m", pulso: true),
        quantity("SwimmingStrokeCount", hae: ["swim_stroke_count"], group: "activity", unit: "count", pulso: true),
        quantity("DistanceWheelchair", hae: ["wheelchair_distance"], group: "activity", unit: "m"),
        quantity("PushCount", hae: ["wheelchair_push_count"], group: "activity", unit: "count"),
        quantity("DistanceDownhillSnowSports", hae: ["downhill_snow_sports"], group: "activity", unit: "m"),
        quantity("DistanceCrossCountrySkiing", group: "activity", unit: "m"),
        quantity("DistancePaddleSports", group: "activity", unit: "m"),
        quantity("DistanceRowing", group: "activity", unit: "m"),
        quantity("DistanceSkatingSports", group: "activity", unit: "m"),
        quantity("CyclingCadence", hae: ["cycling_cadence"], group: "activity", unit: "count/min"),
        quantity("CyclingPower", hae: ["cycling_power"], group: "activity", unit: "W"),
        quantity("CyclingFunctionalThresholdPower", hae: ["cycling_functional_threshold_power"], group: "activity",
                 unit: "W"),
        quantity("CyclingSpeed", hae: ["cycling_speed"], group: "activity", unit: "m/s"),
        quantity("CrossCountrySkiingSpeed", group: "activity", unit: "m/s"),
        quantity("PaddleSportsSpeed", group: "activity", unit: "m/s"),
        quantity("RowingSpeed", group: "activity", unit: "m/s"),
        quantity("NikeFuel", group: "activity", unit: "count"),
        quantity("UnderwaterDepth", hae: ["under_water_depth"], group: "activity", unit: "m"),
        quantity("WaterTemperature", hae: ["under_water_temperature"], group: "activity", unit: "°C"),
        HealthType(identifier: "HKActivitySummaryTypeIdentifier", key: "activitySummary", group: "activity",
                   kind: .activitySummary, storedNames: ["ActivitySummary"]),
    ]

    static let cardio: [HealthType] = [
        quantity("HeartRate", hae: ["heart_rate"], group: "cardio", unit: "count/min", pulso: true),
        quantity("RestingHeartRate", hae: ["resting_heart_rate"], group: "cardio", unit: "count/min", pulso: true),
        quantity("HeartRateVariabilitySDNN", hae: ["heart_rate_variability"], group: "cardio", unit: "ms", pulso: true),
        quantity("VO2Max", key: "vo2Max", hae: ["vo2max", "vo2_max"], group: "cardio", unit: "mL/(kg·min)", pulso: true),
        quantity("HeartRateRecoveryOneMinute", hae: ["cardio_recovery"], group: "cardio", unit: "count/min",
                 pulso: true),
        quantity("WalkingHeartRateAverage", hae: ["walking_heart_rate", "walking_heart_rate_average"],
                 group: "cardio", unit: "count/min", pulso: true),
        quantity("AtrialFibrillationBurden", hae: ["atrial_fibrillation_burden"], group: "cardio", unit: "%"),
        category("HighHeartRateEvent", group: "cardio"),
        category("LowHeartRateEvent", group: "cardio"),
        category("IrregularHeartRhythmEvent", group: "cardio"),
        category("LowCardioFitnessEvent", group: "cardio"),
        HealthType(identifier: "HKDataTypeIdentifierHeartbeatSeries", key: "heartbeatSeries", group: "cardio",
                   kind: .other),
        HealthType(identifier: "HKDataTypeIdentifierElectrocardiogram", key: "electrocardiogram", group: "cardio",
                   kind: .other),
    ]

    static let vitals: [HealthType] = [
        quantity("OxygenSaturation", hae: ["blood_oxygen_saturation"], group: "vitals", unit: "%", pulso: true),
        quantity("RespiratoryRate", hae: ["respiratory_rate"], group: "vitals", unit: "count/min", pulso: true),
        quantity("BloodPressureSystolic", group: "vitals", unit: "mmHg"),
        quantity("BloodPressureDiastolic", group: "vitals", unit: "mmHg"),
        correlation("BloodPressure", hae: ["blood_pressure"], group: "vitals"),
        quantity("BodyTemperature", hae: ["body_temperature"], group: "vitals", unit: "°C"),
        quantity("BloodGlucose", hae: ["blood_glucose"], group: "vitals", unit: "mg/dL"),
        quantity("InsulinDelivery", hae: ["insulin_delivery"], group: "vitals", unit: "IU"),
        quantity("BloodAlcoholContent", hae: ["blood_alcohol_content"], group: "vitals", unit: "%"),
        quantity("PeripheralPerfusionIndex", hae: ["peripheral_perfusion_index"], group: "vitals", unit: "%"),
        quantity("ElectrodermalActivity", hae: ["electrodermal_activity"], group: "vitals", unit: "mcS"),
        quantity("ForcedVitalCapacity", hae: ["forced_vital_capacity"], group: "vitals", unit: "L"),
        quantity("ForcedExpiratoryVolume1", hae: ["forced_expiratory_volume"], group: "vitals", unit: "L"),
        quantity("PeakExpiratoryFlowRate", hae: ["peak_expiratory_flow_rate"], group: "vitals", unit: "L/min"),
        quantity("InhalerUsage", hae: ["inhaler_usage"], group: "vitals", unit: "count"),
    ]

    static let body: [HealthType] = [
        quantity("BodyMass", hae: ["weight_body_mass"], group: "body", unit: "kg", pulso: true),
        quantity("BodyFatPercentage", hae: ["body_fat_percentage"], group: "body", unit: "%", pulso: true),
        quantity("LeanBodyMass", hae: ["lean_body_mass"], group: "body", unit: "kg", pulso: true),
        quantity("BodyMassIndex", hae: ["body_mass_index"], group: "body", unit: "count", pulso: true),
        quantity("WaistCircumference", hae: ["waist_circumference"], group: "body", unit: "cm", pulso: true),
        quantity("Height", hae: ["height"], group: "body", unit: "cm", pulso: true),
    ]

    static let mobility: [HealthType] = [
        quantity("RunningPower", hae: ["running_power"], group: "mobility", unit: "W", pulso: true),
        quantity("RunningSpeed", hae: ["running_speed"], group: "mobility", unit: "m/s", pulso: true),
        quantity("RunningStrideLength", hae: ["running_stride_length"], group: "mobility", unit: "m", pulso: true),
        quantity("RunningVerticalOscillation", hae: ["running_vertical_oscillation"], group: "mobility", unit: "cm",
                 pulso: true),
        quantity("RunningGroundContactTime", hae: ["running_ground_contact_time"], group: "mobility", unit: "ms",
                 pulso: true),
        quantity("WalkingSpeed", hae: ["walking_speed"], group: "mobility", unit: "m/s", pulso: true),
        quantity("WalkingStepLength", hae: ["walking_step_length"], group: "mobility", unit: "cm", pulso: true),
        quantity("WalkingAsymmetryPercentage", hae: ["walking_asymmetry_percentage"], group: "mobility", unit: "%",
                 pulso: true),
        quantity("WalkingDoubleSupportPercentage", hae: ["walking_double_support_percentage"], group: "mobility",
                 unit: "%", pulso: true),
        quantity("AppleWalkingSteadiness", group: "mobility", unit: "%", pulso: true),
        quantity("SixMinuteWalkTestDistance", hae: ["six_minute_walking_test_distance"], group: "mobility",
                 unit: "m", pulso: true),
        quantity("StairAscentSpeed", hae: ["stair_speed_up"], group: "mobility", unit: "m/s", pulso: true),
        quantity("StairDescentSpeed", hae: ["stair_speed_down"], group: "mobility", unit: "m/s", pulso: true),
        category("AppleWalkingSteadinessEvent", group: "mobility"),
        quantity("NumberOfTimesFallen", hae: ["number_of_time_fallen", "number_of_times_fallen"], group: "mobility",
                 unit: "count"),
    ]

    static let audio: [HealthType] = [
        quantity("EnvironmentalAudioExposure", hae: ["environmental_audio", "environmental_audio_exposure"],
                 group: "audio", unit: "dBASPL", pulso: true),
        quantity("HeadphoneAudioExposure", hae: ["headphone_audio", "headphone_audio_exposure"], group: "audio",
                 unit: "dBASPL", pulso: true),
        quantity("EnvironmentalSoundReduction", group: "audio", unit: "dBASPL"),
        category("AudioExposureEvent", group: "audio"),
        category("EnvironmentalAudioExposureEvent", group: "audio"),
        category("HeadphoneAudioExposureEvent", group: "audio"),
        HealthType(identifier: "HKDataTypeIdentifierAudiogram", key: "audiogram", group: "audio", kind: .other),
    ]

    static let nutrition: [HealthType] = [
        dietary("EnergyConsumed", hae: ["dietary_energy"], unit: "kcal", pulso: true),
        dietary("Protein", hae: ["protein"], unit: "g", pulso: true),
        dietary("Carbohydrates", hae: ["carbohydrates"], unit: "g", pulso: true),
        dietary("FatTotal", hae: ["total_fat"], unit: "g", pulso: true),
        dietary("Fiber", hae: ["fiber"], unit: "g", pulso: true),
        dietary("Sugar", hae: ["dietary_sugar"], unit: "g", pulso: true),
        dietary("Sodium", hae: ["sodium"], unit: "mg", pulso: true),
        dietary("Water", hae: ["dietary_water"], unit: "mL", pulso: true),
        dietary("Caffeine", hae: ["caffeine"], unit: "mg", pulso: true),
        quantity("NumberOfAlcoholicBeverages", hae: ["number_of_alcoholic_beverages"], group: "nutrition",
                 unit: "count", pulso: true),
        dietary("FatSaturated", hae: ["saturated_fat"], unit: "g"),
        dietary("FatMonounsaturated", hae: ["monosaturated_fat", "monounsaturated_fat"], unit: "g"),
        dietary("FatPolyunsaturated", hae: ["polyunsaturated_fat"], unit: "g"),
        dietary("Cholesterol", hae: ["cholesterol"], unit: "mg"),
        dietary("VitaminA", hae: ["vitamin_a"], unit: "mcg"),
        dietary("VitaminB6", hae: ["vitamin_b6"], unit: "mg"),
        dietary("VitaminB12", hae: ["vitamin_b12"], unit: "mcg"),
        dietary("VitaminC", hae: ["vitamin_c"], unit: "mg"),
        dietary("VitaminD", hae: ["vitamin_d"], unit: "mcg"),
        dietary("VitaminE", hae: ["vitamin_e"], unit: "mg"),
        dietary("VitaminK", hae: ["vitamin_k"], unit: "mcg"),
        dietary("Thiamin", hae: ["thiamin"], unit: "mg"),
        dietary("Riboflavin", hae: ["riboflavin"], unit: "mg"),
        dietary("Niacin", hae: ["niacin"], unit: "mg"),
        dietary("Folate", hae: ["folate"], unit: "mcg"),
        dietary("Biotin", hae: ["biotin"], unit: "mcg"),
        dietary("PantothenicAcid", hae: ["pantothenic_acid"], unit: "mg"),
        dietary("Calcium", hae: ["calcium"], unit: "mg"),
        dietary("Iron", hae: ["iron"], unit: "mg"),
        dietary("Phosphorus", hae: ["phosphorus"], unit: "mg"),
        dietary("Iodine", hae: ["iodine"], unit: "mcg"),
        dietary("Magnesium", hae: ["magnesium"], unit: "mg"),
        dietary("Zinc", hae: ["zinc"], unit: "mg"),
        dietary("Selenium", hae: ["selenium"], unit: "mcg"),
        dietary("Copper", hae: ["copper"], unit: "mg"),
        dietary("Manganese", hae: ["manganese"], unit: "mg"),
        dietary("Chromium", hae: ["chromium"], unit: "mcg"),
        dietary("Molybdenum", hae: ["molybdenum"], unit: "mcg"),
        dietary("Chloride", hae: ["chloride"], unit: "mg"),
        dietary("Potassium", hae: ["potassium"], unit: "mg"),
        correlation("Food", group: "nutrition"),
    ]

    static let lifestyle: [HealthType] = [
        category("MindfulSession", hae: ["mindful_minutes"], group: "lifestyle", pulso: true),
        HealthType(identifier: "HKDataTypeStateOfMind", key: "stateOfMind", group: "lifestyle",
                   kind: .quantity, canonicalUnit: "valence", isInPulsoProtocol: true),
        category("SexualActivity", hae: ["sexual_activity"], group: "lifestyle", pulso: true),
        quantity("TimeInDaylight", hae: ["time_in_daylight"], group: "lifestyle", unit: "min", pulso: true),
        quantity("UVExposure", key: "uvExposure", hae: ["uv_exposure"], group: "lifestyle", unit: "count"),
        category("HandwashingEvent", hae: ["handwashing"], group: "lifestyle"),
        category("ToothbrushingEvent", hae: ["toothbrushing"], group: "lifestyle"),
    ]

    static let reproductive: [HealthType] = [
        category("MenstrualFlow", group: "reproductive"),
        category("IntermenstrualBleeding", group: "reproductive"),
        category("PersistentIntermenstrualBleeding", group: "reproductive"),
        category("ProlongedMenstrualPeriods", group: "reproductive"),
        category("IrregularMenstrualCycles", group: "reproductive"),
        category("InfrequentMenstrualCycles", group: "reproductive"),
        category("CervicalMucusQuality", group: "reproductive"),
        category("OvulationTestResult", group: "reproductive"),
        category("PregnancyTestResult", group: "reproductive"),
        category("ProgesteroneTestResult", group: "reproductive"),
        category("Pregnancy", group: "reproductive"),
        category("Lactation", group: "reproductive"),
        category("Contraceptive", group: "reproductive"),
        category("BleedingDuringPregnancy", group: "reproductive"),
        category("BleedingAfterPregnancy", group: "reproductive"),
        quantity("BasalBodyTemperature", hae: ["basal_body_temperature"], group: "reproductive", unit: "°C"),
    ]

    static let symptoms: [HealthType] = [
        "AbdominalCramps", "Acne", "AppetiteChanges", "BladderIncontinence", "Bloating", "BreastPain",
        "ChestTightnessOrPain", "Chills", "Constipation", "Coughing", "Diarrhea", "Dizziness", "DrySkin", "Fainting",
        "Fatigue", "Fever", "GeneralizedBodyAche", "HairLoss", "Headache", "Heartburn", "HotFlashes", "LossOfSmell",
        "LossOfTaste", "LowerBackPain", "MemoryLapse", "MoodChanges", "Nausea", "NightSweats", "PelvicPain",
        "RapidPoundingOrFlutteringHeartbeat", "RunnyNose", "ShortnessOfBreath", "SinusCongestion", "SkippedHeartbeat",
        "SleepChanges", "SoreThroat", "VaginalDryness", "Vomiting", "Wheezing",
    ].map { category($0, group: "symptoms") }

    static let clinical: [HealthType] = [
        "AllergyRecord", "ClinicalNoteRecord", "ConditionRecord", "CoverageRecord", "ImmunizationRecord",
        "LabResultRecord", "MedicationRecord", "ProcedureRecord", "VitalSignRecord",
    ].map {
        HealthType(identifier: "HKClinicalTypeIdentifier" + $0, key: lowerFirst($0), group: "clinical", kind: .other)
    } + [
        HealthType(identifier: "HKVisionPrescriptionTypeIdentifier", key: "visionPrescription", group: "clinical",
                   kind: .other, storedNames: ["HKGlassesPrescription", "HKContactsPrescription"]),
    ]

    // MARK: Row builders

    private static func quantity(_ name: String, key: String? = nil, hae: [String] = [], group: String,
                                 unit: String, pulso: Bool = false) -> HealthType {
        HealthType(identifier: "HKQuantityTypeIdentifier" + name, key: key ?? lowerFirst(name), haeNames: hae,
                   group: group, kind: .quantity, canonicalUnit: unit, isInPulsoProtocol: pulso)
    }

    private static func dietary(_ name: String, hae: [String], unit: String, pulso: Bool = false) -> HealthType {
        quantity("Dietary" + name, hae: hae, group: "nutrition", unit: unit, pulso: pulso)
    }

    private static func category(_ name: String, hae: [String] = [], group: String, pulso: Bool = false) -> HealthType {
        HealthType(identifier: "HKCategoryTypeIdentifier" + name, key: lowerFirst(name), haeNames: hae,
                   group: group, kind: .category, isInPulsoProtocol: pulso)
    }

    private static func correlation(_ name: String, hae: [String] = [], group: String) -> HealthType {
        HealthType(identifier: "HKCorrelationTypeIdentifier" + name, key: lowerFirst(name), haeNames: hae,
                   group: group, kind: .correlation)
    }

    private static func lowerFirst(_ name: String) -> String {
        name.prefix(1).lowercased() + name.dropFirst()
    }
}
