import HealthRouterCore

/// Puts an HRV record's beats back inside the record when the export wrote them on another clock.
///
/// export.xml stamps every date with the phone's UTC offset on the day of the export, but writes an
/// `InstantaneousBeatsPerMinute@time` as the phone's wall clock on the day of the beat, with that
/// day's daylight-saving offset: a November reading exported in summer reads
/// `startDate="2017-11-22 19:14:47 -0400"` with its first beat at `6:14:48.94 PM` (EST, −0500), an
/// hour before the record when read in the record's offset. The beats come, in a real export, within
/// the record's start and end (a reading of about a minute).
enum HeartbeatClock {
    /// How far outside its record a beat may lie and still count as inside it.
    static let slackMilliseconds: Int64 = 60_000

    /// The shifts tried, in turn: the differences of two offsets of one zone, the commonest first
    /// (daylight saving moves most clocks by an hour, Lord Howe Island's by half an hour, the Troll
    /// station's by two). An hour comes first: in a record of more than half an hour, a beat an hour
    /// off could be put inside it, at the wrong instant, by half an hour.
    static let shiftsMilliseconds: [Int64] = [60, -60, 30, -30, 120, -120].map { Int64($0) * 60_000 }

    /// `beats` (resolved on the record's day in the record's offset: `TimeOfDayParser`) as they are,
    /// when the first one lies in the record (`start`…`end`, with `slackMilliseconds` on each side) or
    /// no shift in `shiftsMilliseconds` moves it there; else every beat moved by the first shift that
    /// does. The beats keep their offsets (the record's).
    static func aligned(_ beats: [Heartbeat], start: Timestamp, end: Timestamp) -> [Heartbeat] {
        guard let first = beats.first?.time.epochMilliseconds else { return beats }
        let earliest = start.epochMilliseconds - slackMilliseconds
        let latest = max(end.epochMilliseconds, start.epochMilliseconds) + slackMilliseconds
        let inside = { (instant: Int64) in instant >= earliest && instant <= latest }
        guard !inside(first), let shift = shiftsMilliseconds.first(where: { inside(first + $0) }) else { return beats }
        return beats.map { beat in
            var moved = beat
            moved.time = Timestamp(epochMilliseconds: beat.time.epochMilliseconds + shift,
                                   utcOffsetSeconds: beat.time.utcOffsetSeconds)
            return moved
        }
    }
}
