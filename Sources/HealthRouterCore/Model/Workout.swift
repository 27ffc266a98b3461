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

/// A pause, resume, lap, marker or segment inside a workout.
public struct WorkoutEvent: Sendable, Hashable {
    public var type: String
    public var date: Timestamp
    public var durationSeconds: Double?
    public var metadata: [MetadataEntry]

    public init(type: String, date: Timestamp, durationSeconds: Double? = nil, metadata: [MetadataEntry] = []) {
        self.type = type
        self.date = date
        self.durationSeconds = durationSeconds
        self.metadata = metadata
    }
}

/// One statistic of a workout (`WorkoutStatistics`), in the unit the producer used.
public struct WorkoutStatistic: Sendable, Hashable {
    public var type: String
    public var start: Timestamp
    public var end: Timestamp
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    public var sum: Double?
    public var unit: String?

    public init(type: String, start: Timestamp, end: Timestamp, average: Double? = nil, minimum: Double? = nil,
                maximum: Double? = nil, sum: Double? = nil, unit: String? = nil) {
        self.type = type
        self.start = start
        self.end = end
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.sum = sum
        self.unit = unit
    }
}

/// A segment of a multisport or interval workout (iOS 16+ `WorkoutActivity`).
public struct WorkoutActivity: Sendable, Hashable {
    public var id: String
    public var activityType: String?
    public var start: Timestamp
    public var end: Timestamp?
    public var durationSeconds: Double?
    public var metadata: [MetadataEntry]
    public var events: [WorkoutEvent]
    public var statistics: [WorkoutStatistic]

    public init(id: String, activityType: String? = nil, start: Timestamp, end: Timestamp? = nil,
                durationSeconds: Double? = nil, metadata: [MetadataEntry] = [], events: [WorkoutEvent] = [],
                statistics: [WorkoutStatistic] = []) {
        self.id = id
        self.activityType = activityType
        self.start = start
        self.end = end
        self.durationSeconds = durationSeconds
        self.metadata = metadata
        self.events = events
        self.statistics = statistics
    }
}

/// A GPS route of a workout: from a GPX file in the export, or inline `Location`s.
public struct WorkoutRoute: Sendable, Hashable {
    public var sourceName: String?
    public var start: Timestamp?
    public var end: Timestamp?
    /// The GPX path as the export references it (`/workout-routes/route_….gpx`).
    public var filePath: String?
    public var metadata: [MetadataEntry]
    public var points: [RoutePoint]

    public init(sourceName: String? = nil, start: Timestamp? = nil, end: Timestamp? = nil, filePath: String? = nil,
                metadata: [MetadataEntry] = [], points: [RoutePoint] = []) {
        self.sourceName = sourceName
        self.start = start
        self.end = end
        self.filePath = filePath
        self.metadata = metadata
        self.points = points
    }
}

/// One GPS fix. Speeds in m/s, course in degrees, lengths in metres.
public struct RoutePoint: Sendable, Hashable {
    /// Whether the point is a position on Earth (latitude within ±90°, longitude within ±180°)
    /// with no number out of a double's range: the sources that read points one by one (GPX,
    /// an export's Location, Health Auto Export) leave out any other, saying so where they can;
    /// stored, it would be a point at no place (JSON and SQL have no infinity).
    public var isUsable: Bool {
        func finite(_ number: Double?) -> Bool { number.map(\.isFinite) ?? true }
        return latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
            && finite(altitude) && finite(horizontalAccuracy) && finite(verticalAccuracy) && finite(course) && finite(speed)
    }

    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var course: Double?
    public var speed: Double?

    public init(time: Timestamp, latitude: Double, longitude: Double, altitude: Double? = nil,
                horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, course: Double? = nil,
                speed: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
    }
}
