/// The UTC offsets a journaled sample's instants were first written with, for a changed version of
/// it from an input whose dates carry the offset of the day it was written
/// (`Journal.keepsFirstOffsets`): an Apple export stamps every date with the exporting phone's
/// offset, so a record edited between a winter and a summer export would otherwise move its
/// January instants to summer time. Each instant of the new version that the stored version had
/// takes the offset it had there; instants new to this version keep theirs.
///
/// Dates kept as text (the attributes of a generic record: an activity summary, the profile) are
/// not instants here and keep what the new version says.
struct FirstOffsets {
    private var offsets: [Int64: Int32] = [:]

    init(of stored: Sample) {
        var stored = stored
        var offsets: [Int64: Int32] = [:]
        stored.visitTimestamps { time in
            if let offset = time.utcOffsetSeconds, offsets[time.epochMilliseconds] == nil {
                offsets[time.epochMilliseconds] = offset
            }
        }
        self.offsets = offsets
    }

    /// Gives each instant of `sample` the stored version had the offset it had there. Returns
    /// whether any offset changed (the sample's encoding is then stale).
    func apply(to sample: inout Sample) -> Bool {
        guard !offsets.isEmpty else { return false }
        var changed = false
        sample.visitTimestamps { time in
            if let first = offsets[time.epochMilliseconds], time.utcOffsetSeconds != first {
                time.utcOffsetSeconds = first
                changed = true
            }
        }
        return changed
    }
}

extension Sample {
    /// Calls `body` with every instant of the sample: start, end, creation date, a workout's events,
    /// statistics, activities (and theirs), routes and route points, an HRV record's beats.
    public mutating func visitTimestamps(_ body: (inout Timestamp) -> Void) {
        body(&start)
        body(&end)
        if createdAt != nil { body(&createdAt!) }
        switch detail {
        case .workout(var workout):
            for index in workout.events.indices { body(&workout.events[index].date) }
            for index in workout.statistics.indices {
                body(&workout.statistics[index].start)
                body(&workout.statistics[index].end)
            }
            for index in workout.activities.indices {
                body(&workout.activities[index].start)
                if workout.activities[index].end != nil { body(&workout.activities[index].end!) }
                for event in workout.activities[index].events.indices {
                    body(&workout.activities[index].events[event].date)
                }
                for statistic in workout.activities[index].statistics.indices {
                    body(&workout.activities[index].statistics[statistic].start)
                    body(&workout.activities[index].statistics[statistic].end)
                }
            }
            for index in workout.routes.indices {
                if workout.routes[index].start != nil { body(&workout.routes[index].start!) }
                if workout.routes[index].end != nil { body(&workout.routes[index].end!) }
                for point in workout.routes[index].points.indices { body(&workout.routes[index].points[point].time) }
            }
            detail = .workout(workout)
        case .heartbeats(var beats):
            for index in beats.indices { body(&beats[index].time) }
            detail = .heartbeats(beats)
        case .none, .correlation, .record:
            break
        }
    }
}
