import Foundation

/// The UTC offset a journaled sample's start was first written with, handed on to a changed
/// version of it from an input whose dates carry the offset of the day it was written
/// (`Journal.keepsFirstOffsets`): an Apple export stamps every date with the exporting phone's
/// offset, so a record edited between a winter and a summer export would otherwise move its
/// January instants to summer time. `sample_ids` keeps that offset (`start_offset`), so it
/// outlives the entry (`journal.retain`).
///
/// Every instant of the new version that carries the exporter's offset (its start's) takes the
/// first one: the first export stamped all of its dates with one offset too (a GPX file's points
/// included, which the export source gives the workout's offset). Instants with another offset
/// (a GPX point a build before that journaled, in UTC) or none keep theirs.
enum FirstOffsets {
    /// Whether `sample`'s offsets are its recorded zone's (`HKTimeZone`, a zone this machine
    /// knows: `RecordedZoneOffsets` applied it), its own rather than the exporter's.
    static func recordsItsZone(_ sample: Sample) -> Bool {
        guard let zone = sample.timeZone else { return false }
        return TimeZone(identifier: zone) != nil
    }

    /// Gives the instants of `sample` that carry its start's offset the offset `first`. Returns
    /// whether any changed (the sample's encoding is then stale).
    static func apply(firstStartOffset first: Int32, to sample: inout Sample) -> Bool {
        guard let exporters = sample.start.utcOffsetSeconds, exporters != first else { return false }
        sample.visitTimestamps { instant in
            if instant.utcOffsetSeconds == exporters { instant.utcOffsetSeconds = first }
        }
        return true
    }
}

extension Sample {
    /// Calls `body` with every instant of the sample: start, end, creation date, a workout's events,
    /// statistics, activities (and theirs), routes and route points (of a route read from a GPX
    /// file too), an HRV record's beats.
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
