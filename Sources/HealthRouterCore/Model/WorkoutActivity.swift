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
