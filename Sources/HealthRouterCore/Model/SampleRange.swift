extension Sample {
    /// The first number of the sample that is not finite, by name (`value`, `workout duration`,
    /// `workout event duration`, …), nil when every one is. A value in range as the producer wrote
    /// it can leave it once converted to its canonical unit (`1e308 mi` in metres); stored, it would
    /// be no value (JSON and SQL have no infinity), replacing the one stored before. Each source
    /// skips such a sample and says so.
    public var fieldOutOfRange: String? {
        func outOfRange(_ number: Double?) -> Bool { number.map { !$0.isFinite } ?? false }
        func statistic(_ statistics: [WorkoutStatistic]) -> Bool {
            statistics.contains { [$0.average, $0.minimum, $0.maximum, $0.sum].contains(where: outOfRange) }
        }
        if outOfRange(value) { return "value" }
        guard case .workout(let workout) = detail else { return nil }
        if [workout.durationSeconds, workout.totalDistanceMeters, workout.totalEnergyBurnedKilocalories,
            workout.totalBasalEnergyBurnedKilocalories].contains(where: outOfRange) { return "workout total" }
        if workout.events.contains(where: { outOfRange($0.durationSeconds) }) { return "workout event duration" }
        if statistic(workout.statistics) { return "workout statistic" }
        for activity in workout.activities {
            if outOfRange(activity.durationSeconds) { return "workout activity duration" }
            if activity.events.contains(where: { outOfRange($0.durationSeconds) }) { return "workout event duration" }
            if statistic(activity.statistics) { return "workout statistic" }
        }
        // Checked field by field: a route may have a million points.
        func pointOutOfRange(_ point: RoutePoint) -> Bool {
            !point.latitude.isFinite || !point.longitude.isFinite || outOfRange(point.altitude)
                || outOfRange(point.horizontalAccuracy) || outOfRange(point.verticalAccuracy) || outOfRange(point.course)
                || outOfRange(point.speed)
        }
        if workout.routes.contains(where: { $0.points.contains(where: pointOutOfRange) }) { return "workout route point" }
        return nil
    }
}
