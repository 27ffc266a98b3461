/// The parts of a workout beyond the common sample fields.
/// Units are canonical: seconds, metres, kilocalories, count/min.
public struct Workout: Sendable, Hashable {
    /// HealthKit's activity type name as the producer wrote it
    /// (`HKWorkoutActivityTypeRunning` from an export, `running` from Pulso).
    public var activityType: String
    public var durationSeconds: Double?
    public var totalDistanceMeters: Double?
    public var totalEnergyBurnedKilocalories: Double?
    public var totalBasalEnergyBurnedKilocalories: Double?
    public var averageHeartRate: Double?
    public var minimumHeartRate: Double?
    public var maximumHeartRate: Double?
    public var events: [WorkoutEvent]
    public var statistics: [WorkoutStatistic]
    public var activities: [WorkoutActivity]
    public var routes: [WorkoutRoute]

    public init(activityType: String, durationSeconds: Double? = nil, totalDistanceMeters: Double? = nil,
                totalEnergyBurnedKilocalories: Double? = nil, totalBasalEnergyBurnedKilocalories: Double? = nil,
                averageHeartRate: Double? = nil, minimumHeartRate: Double? = nil, maximumHeartRate: Double? = nil,
                events: [WorkoutEvent] = [], statistics: [WorkoutStatistic] = [],
                activities: [WorkoutActivity] = [], routes: [WorkoutRoute] = []) {
        self.activityType = activityType
        self.durationSeconds = durationSeconds
        self.totalDistanceMeters = totalDistanceMeters
        self.totalEnergyBurnedKilocalories = totalEnergyBurnedKilocalories
        self.totalBasalEnergyBurnedKilocalories = totalBasalEnergyBurnedKilocalories
        self.averageHeartRate = averageHeartRate
        self.minimumHeartRate = minimumHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.events = events
        self.statistics = statistics
        self.activities = activities
        self.routes = routes
    }
}
