import Testing
@testable import HealthRouterCore

@Suite struct TypeRegistryTests {
    /// Pulso's 59 type keys with their canonical units (pulso-protocol.md §1.7); nil: no unit.
    static let pulsoKeys: [(key: String, unit: String?)] = [
        ("sleepAnalysis", nil), ("timeInDaylight", "min"), ("appleSleepingWristTemperature", "°C"),
        ("appleSleepingBreathingDisturbances", "count"), ("stateOfMind", "valence"), ("appleStandHour", nil),
        ("mindfulSession", nil), ("workout", nil), ("stepCount", "count"), ("activeEnergyBurned", "kcal"),
        ("basalEnergyBurned", "kcal"), ("physicalEffort", "kcal/hr·kg"), ("appleExerciseTime", "min"),
        ("appleStandTime", "min"), ("flightsClimbed", "count"), ("distanceWalkingRunning", "m"),
        ("distanceCycling", "m"), ("distanceSwimming", "m"), ("swimmingStrokeCount", "count"),
        ("heartRate", "count/min"), ("restingHeartRate", "count/min"), ("heartRateVariabilitySDNN", "ms"),
        ("vo2Max", "mL/(kg·min)"), ("heartRateRecoveryOneMinute", "count/min"), ("walkingHeartRateAverage", "count/min"),
        ("oxygenSaturation", "%"), ("respiratoryRate", "count/min"), ("bodyMass", "kg"), ("bodyFatPercentage", "%"),
        ("leanBodyMass", "kg"), ("bodyMassIndex", "count"), ("waistCircumference", "cm"), ("height", "cm"),
        ("runningPower", "W"), ("runningSpeed", "m/s"), ("runningStrideLength", "m"),
        ("runningVerticalOscillation", "cm"), ("runningGroundContactTime", "ms"), ("walkingSpeed", "m/s"),
        ("walkingStepLength", "cm"), ("walkingAsymmetryPercentage", "%"), ("walkingDoubleSupportPercentage", "%"),
        ("appleWalkingSteadiness", "%"), ("sixMinuteWalkTestDistance", "m"), ("stairAscentSpeed", "m/s"),
        ("stairDescentSpeed", "m/s"), ("environmentalAudioExposure", "dBASPL"), ("headphoneAudioExposure", "dBASPL"),
        ("dietaryEnergyConsumed", "kcal"), ("dietaryProtein", "g"), ("dietaryCarbohydrates", "g"),
        ("dietaryFatTotal", "g"), ("dietaryFiber", "g"), ("dietarySugar", "g"), ("dietarySodium", "mg"),
        ("dietaryWater", "mL"), ("dietaryCaffeine", "mg"), ("numberOfAlcoholicBeverages", "count"),
        ("sexualActivity", nil),
    ]

    /// Health Auto Export's metric names (health-auto-export.md §3.3, with the payload variants).
    static let haeNames = """
        active_energy basal_energy_burned apple_exercise_time apple_move_time apple_stand_time apple_stand_hour \
        cycling_distance downhill_snow_sports swimming_distance walking_running_distance wheelchair_distance \
        flights_climbed wheelchair_push_count swim_stroke_count vo2max vo2_max physical_effort step_count \
        cycling_cadence cycling_functional_threshold_power cycling_power cycling_speed running_power running_speed \
        running_ground_contact_time running_stride_length height weight_body_mass waist_circumference \
        body_fat_percentage body_mass_index lean_body_mass heart_rate resting_heart_rate heart_rate_variability \
        cardio_recovery walking_heart_rate walking_heart_rate_average atrial_fibrillation_burden blood_pressure \
        walking_speed walking_step_length walking_asymmetry_percentage walking_double_support_percentage \
        six_minute_walking_test_distance stair_speed_up stair_speed_down running_vertical_oscillation \
        respiratory_rate forced_expiratory_volume forced_vital_capacity blood_oxygen_saturation \
        peripheral_perfusion_index peak_expiratory_flow_rate inhaler_usage body_temperature basal_body_temperature \
        under_water_depth under_water_temperature uv_exposure time_in_daylight environmental_audio \
        environmental_audio_exposure headphone_audio headphone_audio_exposure mindful_minutes sexual_activity \
        electrodermal_activity sleep_analysis apple_sleeping_wrist_temperature breathing_disturbances \
        insulin_delivery blood_glucose dietary_energy dietary_water dietary_sugar cholesterol carbohydrates biotin \
        caffeine calcium chloride chromium copper fiber folate iodine iron magnesium manganese molybdenum \
        monosaturated_fat niacin pantothenic_acid polyunsaturated_fat potassium protein riboflavin saturated_fat \
        selenium sodium thiamin total_fat vitamin_a vitamin_b6 vitamin_b12 vitamin_c vitamin_d vitamin_e vitamin_k \
        zinc blood_alcohol_content handwashing number_of_time_fallen number_of_alcoholic_beverages toothbrushing
        """.split(separator: " ").map(String.init)

    @Test func everyPulsoKeyIsPresentWithItsUnit() {
        #expect(Self.pulsoKeys.count == 59)
        for (key, unit) in Self.pulsoKeys {
            let type = TypeRegistry.type(key: key)
            #expect(type != nil, "\(key)")
            #expect(type?.canonicalUnit == unit, "\(key)")
            #expect(type?.isInPulsoProtocol == true, "\(key)")
        }
        let marked = TypeRegistry.all.filter(\.isInPulsoProtocol).compactMap(\.key)
        #expect(Set(marked) == Set(Self.pulsoKeys.map(\.key)))
    }

    @Test func pulsoIdentifiersFollowHealthKitNaming() {
        #expect(TypeRegistry.type(key: "vo2Max")?.identifier == "HKQuantityTypeIdentifierVO2Max")
        #expect(TypeRegistry.type(key: "sleepAnalysis")?.identifier == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(TypeRegistry.type(key: "appleStandHour")?.identifier == "HKCategoryTypeIdentifierAppleStandHour")
        #expect(TypeRegistry.type(key: "workout")?.identifier == "HKWorkoutTypeIdentifier")
        // HKStateOfMindType's identifier is HKDataTypeStateOfMind (no "Identifier"), as HealthKit
        // reports it; the name healthrouter gave it before still resolves to it.
        #expect(TypeRegistry.type(key: "stateOfMind")?.identifier == "HKDataTypeStateOfMind")
        #expect(TypeRegistry.resolve("HKDataTypeIdentifierStateOfMind")?.key == "stateOfMind")
        #expect(TypeRegistry.identifier(of: "HKDataTypeIdentifierStateOfMind") == "HKDataTypeStateOfMind")
        #expect(TypeRegistry.group(of: "HKDataTypeStateOfMind") == "lifestyle")
        for (key, _) in Self.pulsoKeys {
            guard let type = TypeRegistry.type(key: key), type.kind == .quantity, key != "stateOfMind", key != "vo2Max"
            else { continue }
            let expected = "HKQuantityTypeIdentifier" + key.prefix(1).uppercased() + key.dropFirst()
            #expect(type.identifier == expected)
        }
    }

    @Test func identifiersKeysAndHAENamesAreUnique() {
        let identifiers = TypeRegistry.all.map(\.identifier)
        #expect(Set(identifiers).count == identifiers.count)
        let keys = TypeRegistry.all.compactMap(\.key)
        #expect(Set(keys).count == keys.count)
        let hae = TypeRegistry.all.flatMap(\.haeNames)
        #expect(Set(hae).count == hae.count)
        // A name used in two roles must name one type.
        for type in TypeRegistry.all {
            for name in [type.identifier] + (type.key.map { [$0] } ?? []) + type.haeNames {
                #expect(TypeRegistry.resolve(name)?.identifier == type.identifier, "\(name)")
            }
        }
    }

    @Test func everyHAEMetricNameResolves() {
        for name in Self.haeNames {
            #expect(TypeRegistry.type(haeName: name) != nil, "\(name)")
        }
        #expect(TypeRegistry.type(haeName: "weight_body_mass")?.identifier == "HKQuantityTypeIdentifierBodyMass")
        #expect(TypeRegistry.type(haeName: "mindful_minutes")?.identifier == "HKCategoryTypeIdentifierMindfulSession")
        #expect(TypeRegistry.type(haeName: "blood_pressure")?.identifier == "HKCorrelationTypeIdentifierBloodPressure")
        #expect(TypeRegistry.type(haeName: "blood_oxygen_saturation")?.identifier
            == "HKQuantityTypeIdentifierOxygenSaturation")
        #expect(TypeRegistry.type(haeName: "heart_rate_variability")?.identifier
            == "HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
    }

    @Test func exportTypesBeyondPulso() {
        let identifiers = [
            "HKCategoryTypeIdentifierAppleStandHour", "HKCategoryTypeIdentifierMindfulSession",
            "HKCategoryTypeIdentifierSexualActivity", "HKCategoryTypeIdentifierHighHeartRateEvent",
            "HKCategoryTypeIdentifierLowHeartRateEvent", "HKCategoryTypeIdentifierIrregularHeartRhythmEvent",
            "HKCategoryTypeIdentifierAudioExposureEvent", "HKCategoryTypeIdentifierHandwashingEvent",
            "HKCategoryTypeIdentifierToothbrushingEvent", "HKCategoryTypeIdentifierHeadache",
            "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
            "HKQuantityTypeIdentifierBloodGlucose", "HKQuantityTypeIdentifierBodyTemperature",
            "HKQuantityTypeIdentifierDistanceWheelchair", "HKQuantityTypeIdentifierPushCount",
            "HKQuantityTypeIdentifierDistanceDownhillSnowSports", "HKQuantityTypeIdentifierCyclingCadence",
            "HKQuantityTypeIdentifierCyclingPower", "HKQuantityTypeIdentifierCyclingSpeed",
            "HKQuantityTypeIdentifierCyclingFunctionalThresholdPower", "HKQuantityTypeIdentifierUVExposure",
            "HKQuantityTypeIdentifierEnvironmentalSoundReduction", "HKQuantityTypeIdentifierAppleMoveTime",
            "HKQuantityTypeIdentifierRespiratoryRate", "HKQuantityTypeIdentifierInsulinDelivery",
            "HKQuantityTypeIdentifierNumberOfTimesFallen", "HKQuantityTypeIdentifierWaterTemperature",
            "HKQuantityTypeIdentifierUnderwaterDepth", "HKQuantityTypeIdentifierDietaryVitaminC",
            "HKQuantityTypeIdentifierDietaryIron", "HKCorrelationTypeIdentifierBloodPressure",
            "HKCorrelationTypeIdentifierFood", "HKWorkoutTypeIdentifier", "HKDataTypeSleepDurationGoal",
            "HKDataTypeIdentifierAudiogram", "HKDataTypeIdentifierHeartbeatSeries",
        ]
        for identifier in identifiers {
            #expect(TypeRegistry.type(identifier: identifier) != nil, "\(identifier)")
        }
        #expect(TypeRegistry.type(identifier: "HKCorrelationTypeIdentifierFood")?.kind == .correlation)
        #expect(TypeRegistry.type(identifier: "HKCategoryTypeIdentifierHeadache")?.group == "symptoms")
        #expect(TypeRegistry.type(identifier: "HKQuantityTypeIdentifierBloodGlucose")?.canonicalUnit == "mg/dL")
        #expect(TypeRegistry.type(identifier: "HKQuantityTypeIdentifierDietaryVitaminD")?.canonicalUnit == "mcg")
    }

    @Test func everyTypeIsWellFormed() {
        let groups = Set(TypeRegistry.groups)
        #expect(groups == ["sleep", "workouts", "activity", "cardio", "vitals", "body", "mobility", "audio",
                           "nutrition", "lifestyle", "reproductive", "symptoms", "clinical", "other"])
        for type in TypeRegistry.all {
            #expect(type.group != TypeRegistry.unknownGroup, "\(type.identifier)")
            #expect(type.identifier.hasPrefix("HK"), "\(type.identifier)")
            #expect((type.kind == .quantity) == (type.canonicalUnit != nil), "\(type.identifier)")
            if type.identifier.hasPrefix("HKQuantityTypeIdentifier") { #expect(type.kind == .quantity) }
            if type.identifier.hasPrefix("HKCategoryTypeIdentifier") { #expect(type.kind == .category) }
            if type.identifier.hasPrefix("HKCorrelationTypeIdentifier") { #expect(type.kind == .correlation) }
        }
        #expect(TypeRegistry.types(inGroup: "body").count == 6)
    }

    @Test func lookupsByEveryName() {
        let heartRate = "HKQuantityTypeIdentifierHeartRate"
        #expect(TypeRegistry.type(identifier: heartRate)?.key == "heartRate")
        #expect(TypeRegistry.type(key: "heartRate")?.identifier == heartRate)
        #expect(TypeRegistry.type(haeName: "heart_rate")?.identifier == heartRate)
        #expect(TypeRegistry.resolve(heartRate)?.identifier == heartRate)
        #expect(TypeRegistry.resolve("heartRate")?.identifier == heartRate)
        #expect(TypeRegistry.resolve("heart_rate")?.identifier == heartRate)
        #expect(TypeRegistry.identifier(of: "heart_rate") == heartRate)
        #expect(TypeRegistry.group(of: "heartRate") == "cardio")
        // Lookups are exact: other spellings are different names.
        #expect(TypeRegistry.type(key: "HeartRate") == nil)
        #expect(TypeRegistry.type(identifier: "heartRate") == nil)
    }

    @Test func unknownTypesPassThrough() {
        #expect(TypeRegistry.resolve("HKQuantityTypeIdentifierSomethingNew") == nil)
        #expect(TypeRegistry.type(identifier: "HKQuantityTypeIdentifierSomethingNew") == nil)
        #expect(TypeRegistry.type(haeName: "something_new") == nil)
        #expect(TypeRegistry.identifier(of: "somethingNew") == "somethingNew")
        #expect(TypeRegistry.group(of: "somethingNew") == TypeRegistry.unknownGroup)
        #expect(TypeRegistry.groups.last == TypeRegistry.unknownGroup)
    }
}
