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
