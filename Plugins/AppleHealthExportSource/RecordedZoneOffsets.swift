import Foundation
import HealthRouterCore

/// The UTC offsets of a sample that recorded its zone (`HKTimeZone`): that zone's offset at each
/// of its instants, as Pulso's protocol writes them (v1.2 §1.5), instead of the export's, which is
/// the exporting phone's offset on the day of the export for every date. A zone the system does
/// not know (no tzdata installed) leaves the export's offsets. Zones are looked up once each.
/// A sample that recorded none, or one the system does not know, gets `phoneZone`'s (the source's
/// `time_zone`), when there is one;
/// an activity summary, a UTC calendar day, keeps its offset 0.
struct RecordedZoneOffsets {
    private var zones: [String: TimeZone?] = [:]
    /// The zone the source's `time_zone` names.
    let phoneZone: TimeZone?

    init(phoneZone: TimeZone? = nil) {
        self.phoneZone = phoneZone
    }

    /// Whether `apply` may change `sample`'s offsets.
    func applies(to sample: Sample) -> Bool {
        sample.timeZone != nil || (phoneZone != nil && sample.kind != .activitySummary)
    }

    mutating func apply(to sample: inout Sample) {
        var zone: TimeZone?
        if let name = sample.timeZone {
            if let cached = zones[name] {
                zone = cached
            } else {
                zone = TimeZone(identifier: name)
                zones[name] = zone
            }
        }
        // A recorded zone the system does not know gives way to the phone's, as no zone does.
        if zone == nil, sample.kind != .activitySummary { zone = phoneZone }
        guard let zone else { return }
        // Its parts' dates too, so that local-time questions agree on the sample and its parts. A
        // date written without an offset (read as UTC: its offset is unknown) claims none here either.
        sample.visitTimestamps { instant in
            guard instant.utcOffsetSeconds != nil else { return }
            let date = Date(timeIntervalSince1970: Double(instant.epochMilliseconds) / 1000)
            instant.utcOffsetSeconds = Int32(zone.secondsFromGMT(for: date))
        }
    }
}
