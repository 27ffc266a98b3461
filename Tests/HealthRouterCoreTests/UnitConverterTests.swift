import Testing
@testable import HealthRouterCore

@Suite struct UnitConverterTests {
    private func canonical(_ value: Double, _ unit: String, _ type: String,
                           _ convention: ValueConvention = .healthKit) -> (value: Double, unit: String) {
        UnitConverter.toCanonical(value, unit: unit, type: type, convention: convention)
    }

    private func close(_ result: (value: Double, unit: String), _ value: Double, _ unit: String) -> Bool {
        abs(result.value - value) <= 1e-9 * max(1, abs(value)) && result.unit == unit
    }

    @Test func lengths() {
        #expect(close(canonical(5, "km", "HKQuantityTypeIdentifierDistanceWalkingRunning"), 5000, "m"))
        #expect(close(canonical(1, "mi", "distanceCycling"), 1609.344, "m"))
        #expect(close(canonical(3, "ft", "walking_running_distance"), 0.9144, "m"))
        #expect(close(canonical(10, "in", "HKQuantityTypeIdentifierHeight"), 25.4, "cm"))
        #expect(close(canonical(1.8, "m", "HKQuantityTypeIdentifierHeight"), 180, "cm"))
        #expect(close(canonical(70, "cm", "HKQuantityTypeIdentifierRunningStrideLength"), 0.7, "m"))
        #expect(close(canonical(2.5, "in", "HKQuantityTypeIdentifierRunningVerticalOscillation"), 6.35, "cm"))
    }

    @Test func energy() {
        #expect(close(canonical(418.4, "kJ", "HKQuantityTypeIdentifierActiveEnergyBurned"), 100, "kcal"))
        #expect(close(canonical(250, "Cal", "HKQuantityTypeIdentifierDietaryEnergyConsumed"), 250, "kcal"))
        #expect(close(canonical(1700, "kcal", "HKQuantityTypeIdentifierBasalEnergyBurned"), 1700, "kcal"))
    }

    @Test func temperature() {
        #expect(close(canonical(98.6, "degF", "HKQuantityTypeIdentifierBodyTemperature"), 37, "°C"))
        #expect(close(canonical(32, "degF", "HKQuantityTypeIdentifierWaterTemperature"), 0, "°C"))
        #expect(close(canonical(-0.4, "degC", "HKQuantityTypeIdentifierAppleSleepingWristTemperature"), -0.4, "°C"))
        #expect(close(canonical(310.15, "K", "HKQuantityTypeIdentifierBodyTemperature"), 37, "°C"))
        #expect(UnitConverter.convert(37, from: "degC", to: "degF").map { abs($0 - 98.6) < 1e-9 } == true)
    }

    @Test func mass() {
        #expect(close(canonical(150, "lb", "HKQuantityTypeIdentifierBodyMass"), 68.038_855_5, "kg"))
        #expect(close(canonical(72_000, "g", "HKQuantityTypeIdentifierLeanBodyMass"), 72, "kg"))
        #expect(close(canonical(1, "oz", "HKQuantityTypeIdentifierDietaryProtein"), 28.349_523_125, "g"))
        #expect(close(canonical(2, "g", "HKQuantityTypeIdentifierDietarySodium"), 2000, "mg"))
        #expect(close(canonical(0.5, "mg", "HKQuantityTypeIdentifierDietaryVitaminD"), 500, "mcg"))
        #expect(close(canonical(40, "mcg", "HKQuantityTypeIdentifierDietaryVitaminD"), 40, "mcg"))
    }

    @Test func volume() {
        #expect(close(canonical(8, "fl_oz_us", "HKQuantityTypeIdentifierDietaryWater"), 236.588_236_5, "mL"))
        #expect(close(canonical(0.5, "L", "HKQuantityTypeIdentifierDietaryWater"), 500, "mL"))
        #expect(close(canonical(250, "mL", "dietary_water"), 250, "mL"))
    }

    @Test func time() {
        #expect(close(canonical(90, "s", "HKQuantityTypeIdentifierAppleExerciseTime"), 1.5, "min"))
        #expect(close(canonical(2, "hr", "HKQuantityTypeIdentifierTimeInDaylight"), 120, "min"))
        #expect(close(canonical(0.25, "s", "HKQuantityTypeIdentifierRunningGroundContactTime"), 250, "ms"))
        #expect(close(canonical(45, "ms", "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"), 45, "ms"))
        #expect(close(canonical(480, "min", "HKDataTypeSleepDurationGoal"), 8, "hr"))
    }

    @Test func rates() {
        #expect(close(canonical(72, "bpm", "heart_rate"), 72, "count/min"))
        #expect(close(canonical(72, "count/min", "HKQuantityTypeIdentifierHeartRate"), 72, "count/min"))
        #expect(close(canonical(0.25, "count/s", "HKQuantityTypeIdentifierRespiratoryRate"), 15, "count/min"))
        #expect(close(canonical(85, "count/min", "HKQuantityTypeIdentifierCyclingCadence"), 85, "count/min"))
    }

    @Test func speeds() {
        #expect(close(canonical(3.6, "km/hr", "HKQuantityTypeIdentifierWalkingSpeed"), 1, "m/s"))
        #expect(close(canonical(1, "mi/hr", "HKQuantityTypeIdentifierRunningSpeed"), 0.447_04, "m/s"))
        #expect(close(canonical(1, "ft/s", "HKQuantityTypeIdentifierStairAscentSpeed"), 0.3048, "m/s"))
        #expect(close(canonical(30, "km/hr", "HKQuantityTypeIdentifierCyclingSpeed"), 8.333_333_333_333_334, "m/s"))
    }

    @Test func compoundUnitsWithEitherSeparator() {
        #expect(close(canonical(45.2, "mL/min·kg", "HKQuantityTypeIdentifierVO2Max"), 45.2, "mL/(kg·min)"))
        #expect(close(canonical(45.2, "mL/min-kg", "vo2Max"), 45.2, "mL/(kg·min)"))
        #expect(close(canonical(45.2, "ml/kg/min", "vo2max"), 45.2, "mL/(kg·min)"))
        #expect(close(canonical(9.9, "kcal/hr·kg", "HKQuantityTypeIdentifierPhysicalEffort"), 9.9, "kcal/hr·kg"))
        #expect(close(canonical(9.9, "kcal/hr-kg", "HKQuantityTypeIdentifierPhysicalEffort"), 9.9, "kcal/hr·kg"))
    }

    @Test func clinicalUnits() {
        #expect(close(canonical(120, "mmHg", "HKQuantityTypeIdentifierBloodPressureSystolic"), 120, "mmHg"))
        #expect(close(canonical(16, "kPa", "HKQuantityTypeIdentifierBloodPressureSystolic"), 120.009_852_135_305, "mmHg"))
        #expect(close(canonical(5.5, "mmol<180.1558800000541>/L", "HKQuantityTypeIdentifierBloodGlucose"),
                      99.085_734_000_029_76, "mg/dL"))
        #expect(close(canonical(5.5, "mmol/L", "blood_glucose"), 99.085_734_000_029_76, "mg/dL"))
        #expect(close(canonical(99, "mg/dL", "HKQuantityTypeIdentifierBloodGlucose"), 99, "mg/dL"))
        #expect(close(canonical(65, "dBASPL", "HKQuantityTypeIdentifierEnvironmentalAudioExposure"), 65, "dBASPL"))
        #expect(close(canonical(250, "W", "HKQuantityTypeIdentifierRunningPower"), 250, "W"))
        #expect(close(canonical(0.3, "kW", "HKQuantityTypeIdentifierCyclingPower"), 300, "W"))
    }

    @Test func percentScalesOnlyUnderHealthKitConvention() {
        #expect(close(canonical(0.96, "%", "HKQuantityTypeIdentifierOxygenSaturation", .healthKit), 96, "%"))
        #expect(close(canonical(1, "%", "HKQuantityTypeIdentifierOxygenSaturation", .healthKit), 100, "%"))
        #expect(close(canonical(0.215, "%", "HKQuantityTypeIdentifierBodyFatPercentage", .healthKit), 21.5, "%"))
        #expect(close(canonical(96, "%", "oxygenSaturation", .canonical), 96, "%"))
        #expect(close(canonical(30, "%", "walking_double_support_percentage", .canonical), 30, "%"))
        // Not a percentage type: nothing to scale.
        #expect(close(canonical(0.5, "count", "HKQuantityTypeIdentifierStepCount", .healthKit), 0.5, "count"))
        // `convert` itself never scales.
        #expect(UnitConverter.convert(0.96, from: "%", to: "%") == 0.96)
    }

    @Test func unknownsAreUnchanged() {
        // Unknown unit.
        #expect(close(canonical(3, "furlong", "HKQuantityTypeIdentifierDistanceWalkingRunning"), 3, "furlong"))
        // Unit of another dimension.
        #expect(close(canonical(3, "kg", "HKQuantityTypeIdentifierDistanceWalkingRunning"), 3, "kg"))
        // Unknown type, even with a known unit.
        #expect(close(canonical(3, "km", "HKQuantityTypeIdentifierSomethingNew"), 3, "km"))
        // Type without a canonical unit.
        #expect(close(canonical(3, "km", "HKCategoryTypeIdentifierSleepAnalysis"), 3, "km"))
        #expect(UnitConverter.convert(1, from: "km", to: "kg") == nil)
        #expect(UnitConverter.convert(1, from: "furlong", to: "m") == nil)
        #expect(UnitConverter.convert(1, from: "mmol<abc>/L", to: "mg/dL") == nil)
        #expect(UnitConverter.knows("km") && !UnitConverter.knows("furlong"))
    }

    @Test func everyCanonicalUnitIsKnown() {
        for type in TypeRegistry.all {
            guard let unit = type.canonicalUnit else { continue }
            #expect(UnitConverter.knows(unit), "\(type.identifier): \(unit)")
        }
    }
}
