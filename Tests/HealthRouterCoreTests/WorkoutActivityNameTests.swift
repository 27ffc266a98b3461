import Testing
@testable import HealthRouterCore

@Suite struct WorkoutActivityNameTests {
    @Test func everySpellingToPulso() {
        #expect(WorkoutActivityName.pulsoName("HKWorkoutActivityTypeRunning") == "running")
        #expect(WorkoutActivityName.pulsoName("HKWorkoutActivityTypeTraditionalStrengthTraining")
            == "traditionalStrengthTraining")
        #expect(WorkoutActivityName.pulsoName("HKWorkoutActivityTypeHighIntensityIntervalTraining")
            == "highIntensityIntervalTraining")
        #expect(WorkoutActivityName.pulsoName("running") == "running")
        #expect(WorkoutActivityName.pulsoName("Running") == "running")
        #expect(WorkoutActivityName.pulsoName("Traditional Strength Training") == "traditionalStrengthTraining")
        #expect(WorkoutActivityName.pulsoName("activity_3000") == "activity_3000")
        // Health Auto Export's names with a lower-case word: HealthKit capitalises it.
        #expect(WorkoutActivityName.pulsoName("Mind and Body") == "mindAndBody")
        #expect(WorkoutActivityName.healthKitName("Track and Field") == "HKWorkoutActivityTypeTrackAndField")
        #expect(WorkoutActivityName.healthKitName("Preparation and Recovery") == "HKWorkoutActivityTypePreparationAndRecovery")
        #expect(WorkoutActivityName.pulsoName("") == "")
    }

    @Test func everySpellingToHealthKit() {
        #expect(WorkoutActivityName.healthKitName("running") == "HKWorkoutActivityTypeRunning")
        #expect(WorkoutActivityName.healthKitName("traditionalStrengthTraining")
            == "HKWorkoutActivityTypeTraditionalStrengthTraining")
        #expect(WorkoutActivityName.healthKitName("Traditional Strength Training")
            == "HKWorkoutActivityTypeTraditionalStrengthTraining")
        #expect(WorkoutActivityName.healthKitName("HKWorkoutActivityTypeYoga") == "HKWorkoutActivityTypeYoga")
        #expect(WorkoutActivityName.healthKitName("activity_3000") == "activity_3000")
    }
}
