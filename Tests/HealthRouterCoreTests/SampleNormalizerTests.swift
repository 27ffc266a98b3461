import Testing
@testable import HealthRouterCore

@Suite struct SampleNormalizerTests {
    let start = Timestamp(epochSeconds: 1_704_477_600, utcOffsetSeconds: -28_800)

    private func sample(_ type: String, value: Double? = nil, unit: String? = nil, category: String? = nil,
                        id: String = "", device: String? = nil) -> Sample {
        Sample(id: id, type: type, kind: category == nil ? .quantity : .category, start: start, end: start,
               value: value, unit: unit, categoryValue: category, sourceName: "Apple Watch", device: device)
    }

    /// A spread of samples as sources read them.
    var fixtures: [Sample] {
        [
            sample("HKQuantityTypeIdentifierOxygenSaturation", value: 0.96, unit: "%",
                   device: "<<HKDevice: 0x282a45810>, name:Apple Watch>"),
            sample("HKQuantityTypeIdentifierActiveEnergyBurned", value: 418.4, unit: "kJ"),
            sample("HKQuantityTypeIdentifierBodyTemperature", value: 98.6, unit: "degF"),
            sample("distanceWalkingRunning", value: 1200, unit: "m", id: "PULSO-UUID"),
            sample("walking_speed", value: 5.4, unit: "km/hr"),
            sample("HKCategoryTypeIdentifierSleepAnalysis", category: "HKCategoryValueSleepAnalysisAsleepREM"),
            sample("HKQuantityTypeIdentifierSomethingNew", value: 3, unit: "furlong"),
            sample("HKQuantityTypeIdentifierHeartRate", value: 72, unit: "furlong"),
        ]
    }

    @Test func convertsUnitsAndNames() {
        var spo2 = fixtures[0]
        SampleNormalizer.normalize(&spo2, convention: .healthKit)
        #expect(abs(spo2.value! - 96) < 1e-9 && spo2.unit == "%")
        #expect(spo2.device == "<<HKDevice>, name:Apple Watch>")
        #expect(spo2.id == Fingerprint.id(of: spo2))

        // A percentage of a type the registry does not know stays as written: scaled, its
        // fingerprint id would change, and an export imported again would store it twice.
        var future = sample("HKQuantityTypeIdentifierFutureSaturationPercentage", value: 0.95, unit: "%")
        SampleNormalizer.normalize(&future, convention: .healthKit)
        #expect(future.value == 0.95 && future.unit == "%")

        var energy = fixtures[1]
        SampleNormalizer.normalize(&energy, convention: .healthKit)
        #expect(abs(energy.value! - 100) < 1e-9 && energy.unit == "kcal")

        var temperature = fixtures[2]
        SampleNormalizer.normalize(&temperature, convention: .healthKit)
        #expect(abs(temperature.value! - 37) < 1e-9 && temperature.unit == "°C")

        var pushed = fixtures[3]
        SampleNormalizer.normalize(&pushed, convention: .canonical)
        #expect(pushed.type == "HKQuantityTypeIdentifierDistanceWalkingRunning")
        #expect(pushed.id == "PULSO-UUID")
        #expect(pushed.value == 1200 && pushed.unit == "m")

        var hae = fixtures[4]
        SampleNormalizer.normalize(&hae, convention: .canonical)
        #expect(hae.type == "HKQuantityTypeIdentifierWalkingSpeed")
        #expect(abs(hae.value! - 1.5) < 1e-9 && hae.unit == "m/s")
    }

    @Test func leavesWhatItCannotConvert() {
        var sleep = fixtures[5]
        SampleNormalizer.normalize(&sleep, convention: .healthKit)
        #expect(sleep.categoryValue == "HKCategoryValueSleepAnalysisAsleepREM")
        #expect(sleep.value == nil && sleep.unit == nil)

        var unknownType = fixtures[6]
        SampleNormalizer.normalize(&unknownType, convention: .healthKit)
        #expect(unknownType.type == "HKQuantityTypeIdentifierSomethingNew")
        #expect(unknownType.value == 3 && unknownType.unit == "furlong")
        #expect(!unknownType.id.isEmpty)

        var unknownUnit = fixtures[7]
        SampleNormalizer.normalize(&unknownUnit, convention: .healthKit)
        #expect(unknownUnit.value == 72 && unknownUnit.unit == "furlong")
    }

    @Test func percentUnderCanonicalIsLeftAlone() {
        var pushed = sample("oxygenSaturation", value: 96, unit: "%", id: "U")
        SampleNormalizer.normalize(&pushed, convention: .canonical)
        #expect(pushed.value == 96)
    }

    @Test func isIdempotent() {
        for convention in [ValueConvention.healthKit, .canonical] {
            for fixture in fixtures {
                var once = fixture
                SampleNormalizer.normalize(&once, convention: convention)
                // Normalised samples are canonical: normalising again as such changes nothing.
                var twice = once
                SampleNormalizer.normalize(&twice, convention: .canonical)
                #expect(twice == once, "\(fixture.type)")
                // Same convention twice is once, for everything but HealthKit's percent fractions.
                if !(convention == .healthKit && fixture.unit == "%") {
                    var again = once
                    SampleNormalizer.normalize(&again, convention: convention)
                    #expect(again == once, "\(fixture.type)")
                }
            }
        }
    }

    @Test func idIsStableWhenNormalisedAgain() {
        var sample = fixtures[1]
        SampleNormalizer.normalize(&sample, convention: .healthKit)
        let id = sample.id
        sample.id = ""
        SampleNormalizer.normalize(&sample, convention: .canonical)
        #expect(sample.id == id)
    }
}
