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
