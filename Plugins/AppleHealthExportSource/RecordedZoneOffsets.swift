import Foundation
import HealthRouterCore

/// The UTC offsets of a sample that recorded its zone (`HKTimeZone`): that zone's offset at each
/// of its instants, as Pulso's protocol writes them (v1.2 §1.5), instead of the export's, which is
/// the exporting phone's offset on the day of the export for every date. A zone the system does
/// not know (no tzdata installed) leaves the export's offsets. Zones are looked up once each.
struct RecordedZoneOffsets {
    private var zones: [String: TimeZone?] = [:]

    mutating func apply(to sample: inout Sample) {
        guard let name = sample.timeZone else { return }
        let zone: TimeZone?
        if let cached = zones[name] {
            zone = cached
        } else {
            zone = TimeZone(identifier: name)
            zones[name] = zone
        }
        guard let zone else { return }
        func offset(_ instant: Timestamp) -> Int32 {
            Int32(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant.epochMilliseconds) / 1000)))
        }
        sample.start.utcOffsetSeconds = offset(sample.start)
        sample.end.utcOffsetSeconds = offset(sample.end)
        if var created = sample.createdAt {
            created.utcOffsetSeconds = offset(created)
            sample.createdAt = created
        }
        // Its parts' dates too, so that local-time questions agree on the sample and its parts.
        switch sample.detail {
        case .workout(var workout):
            Self.setOffsets(of: &workout, offset)
            sample.detail = .workout(workout)
        case .heartbeats(var beats):
            for index in beats.indices { beats[index].time.utcOffsetSeconds = offset(beats[index].time) }
            sample.detail = .heartbeats(beats)
        default:
            break
        }
    }

    private static func setOffsets(of workout: inout Workout, _ offset: (Timestamp) -> Int32) {
        func set(_ instant: inout Timestamp) { instant.utcOffsetSeconds = offset(instant) }
        func set(_ instant: inout Timestamp?) {
            if var known = instant {
                set(&known)
                instant = known
            }
        }
        func set(_ events: inout [WorkoutEvent]) { for index in events.indices { set(&events[index].date) } }
        func set(_ statistics: inout [WorkoutStatistic]) {
            for index in statistics.indices {
                set(&statistics[index].start)
                set(&statistics[index].end)
            }
        }
        set(&workout.events)
        set(&workout.statistics)
        for index in workout.activities.indices {
            set(&workout.activities[index].start)
            set(&workout.activities[index].end)
            set(&workout.activities[index].events)
            set(&workout.activities[index].statistics)
        }
        for index in workout.routes.indices {
            set(&workout.routes[index].start)
            set(&workout.routes[index].end)
            for point in workout.routes[index].points.indices { set(&workout.routes[index].points[point].time) }
        }
    }
}
