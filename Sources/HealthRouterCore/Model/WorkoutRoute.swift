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
