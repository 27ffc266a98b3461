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
