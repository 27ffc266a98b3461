import Testing
@testable import HealthRouterCore

@Suite struct CategoryValueNamesTests {
    let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    let stand = "HKCategoryTypeIdentifierAppleStandHour"

    @Test func sleepStages() {
        let pairs = [
            ("HKCategoryValueSleepAnalysisInBed", "inBed"),
            ("HKCategoryValueSleepAnalysisAsleepUnspecified", "asleepUnspecified"),
            ("HKCategoryValueSleepAnalysisAwake", "awake"),
            ("HKCategoryValueSleepAnalysisAsleepCore", "asleepCore"),
            ("HKCategoryValueSleepAnalysisAsleepDeep", "asleepDeep"),
            ("HKCategoryValueSleepAnalysisAsleepREM", "asleepREM"),
        ]
        for (healthKit, pulso) in pairs {
            #expect(CategoryValueNames.pulsoName(healthKit, type: sleep) == pulso)
            #expect(CategoryValueNames.healthKitName(pulso, type: sleep) == healthKit)
            #expect(CategoryValueNames.pulsoName(healthKit, type: "sleepAnalysis") == pulso)
            // Idempotent both ways.
            #expect(CategoryValueNames.pulsoName(pulso, type: sleep) == pulso)
            #expect(CategoryValueNames.healthKitName(healthKit, type: sleep) == healthKit)
        }
    }

    @Test func preIOS16AsleepIsUnspecified() {
        #expect(CategoryValueNames.pulsoName("HKCategoryValueSleepAnalysisAsleep", type: sleep) == "asleepUnspecified")
        #expect(CategoryValueNames.healthKitName("HKCategoryValueSleepAnalysisAsleep", type: sleep)
            == "HKCategoryValueSleepAnalysisAsleepUnspecified")
    }

    @Test func healthAutoExportSleepValues() {
        let pairs = [("In Bed", "inBed"), ("Asleep", "asleepUnspecified"), ("Unspecified", "asleepUnspecified"),
                     ("Awake", "awake"), ("Core", "asleepCore"), ("Deep", "asleepDeep"), ("REM", "asleepREM")]
        for (hae, pulso) in pairs {
            #expect(CategoryValueNames.pulsoName(hae, type: "sleep_analysis") == pulso)
        }
        #expect(CategoryValueNames.healthKitName("Core", type: sleep) == "HKCategoryValueSleepAnalysisAsleepCore")
    }

    @Test func standHour() {
        #expect(CategoryValueNames.pulsoName("HKCategoryValueAppleStandHourStood", type: stand) == "stood")
        #expect(CategoryValueNames.pulsoName("HKCategoryValueAppleStandHourIdle", type: "appleStandHour") == "idle")
        #expect(CategoryValueNames.healthKitName("stood", type: stand) == "HKCategoryValueAppleStandHourStood")
        #expect(CategoryValueNames.healthKitName("idle", type: stand) == "HKCategoryValueAppleStandHourIdle")
    }

    @Test func othersUnchanged() {
        #expect(CategoryValueNames.pulsoName("HKCategoryValueNotApplicable", type: "HKCategoryTypeIdentifierMindfulSession")
            == "HKCategoryValueNotApplicable")
        #expect(CategoryValueNames.pulsoName("value_9", type: sleep) == "value_9")
        #expect(CategoryValueNames.healthKitName("value_9", type: sleep) == "value_9")
        // A sleep name under another type is not translated.
        #expect(CategoryValueNames.pulsoName("HKCategoryValueSleepAnalysisAwake", type: stand)
            == "HKCategoryValueSleepAnalysisAwake")
        #expect(CategoryValueNames.healthKitName("inBed", type: "HKCategoryTypeIdentifierHeadache") == "inBed")
    }
}
