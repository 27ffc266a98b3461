import HealthRouterCore
import PostgresClient

/// Encodes samples as COPY rows for the three tables, in the column order of `TimescaleDBSchema`.
/// Reused across batches: `reset()` keeps the buffers' capacity.
struct TimescaleDBRowEncoder {
    var samples = CopyTextWriter()
    var sleepStages = CopyTextWriter()
    var workouts = CopyTextWriter()
    private var json = JSONWriter(capacity: 1024)
    /// The user id of samples that carry none.
    let defaultUserId: String?

    init(defaultUserId: String?) {
        self.defaultUserId = defaultUserId
        // jsonb cannot hold U+0000: `metadata` and `detail` get U+FFFD, `canonical` the exact sample.
        json.replacesNUL = true
    }

    var isEmpty: Bool { samples.isEmpty && sleepStages.isEmpty && workouts.isEmpty }

    mutating func reset() {
        samples.reset(); sleepStages.reset(); workouts.reset()
    }

    mutating func append(_ sample: Sample, sequence: Int64) {
        switch sample.kind {
        case .workout:
            let exact = Self.header(sample, defaultUserId, &json, into: &workouts)
            var workout: Workout?
            if case .workout(let parts) = sample.detail { workout = parts }
            workouts.text(workout.map { PulsoJSONEncoder.pulsoWorkoutActivityType($0.activityType) })
            workouts.double(workout?.durationSeconds)
            workouts.double(workout?.totalDistanceMeters)
            workouts.double(workout?.totalEnergyBurnedKilocalories)
            workouts.double(workout?.totalBasalEnergyBurnedKilocalories)
            workouts.double(workout?.averageHeartRate)
            workouts.double(workout?.minimumHeartRate)
            workouts.double(workout?.maximumHeartRate)
            Self.detail(sample, &json, into: &workouts)
            Self.trailer(sample, exact: exact, defaultUserId, sequence: sequence, into: &workouts)
        case .category where sample.type == "HKCategoryTypeIdentifierSleepAnalysis":
            let exact = Self.header(sample, defaultUserId, &json, into: &sleepStages)
            sleepStages.text(sample.categoryValue.map { CategoryValueNames.pulsoName($0, type: sample.type) })
            sleepStages.text(sample.categoryValue)
            sleepStages.double(sample.value)
            sleepStages.text(sample.unit)
            Self.trailer(sample, exact: exact, defaultUserId, sequence: sequence, into: &sleepStages)
        default:
            let exact = Self.header(sample, defaultUserId, &json, into: &samples)
            samples.text(sample.kind.name)
            samples.double(sample.value)
            samples.text(sample.unit)
            samples.text(sample.categoryValue)
            Self.detail(sample, &json, into: &samples)
            Self.trailer(sample, exact: exact, defaultUserId, sequence: sequence, into: &samples)
        }
    }

    /// The header columns; returns whether `metadata` holds the sample's metadata as it is (false
    /// when a U+0000 in it was written as U+FFFD).
    private static func header(_ sample: Sample, _ defaultUserId: String?, _ json: inout JSONWriter,
                               into row: inout CopyTextWriter) -> Bool {
        row.text(sample.id)
        row.int(sample.start.epochMilliseconds)
        row.int(sample.end.epochMilliseconds)
        row.text(sample.type)
        row.text(sample.userId ?? defaultUserId)
        row.text(sample.sourceName)
        row.text(sample.sourceVersion)
        row.text(sample.sourceBundleId)
        row.text(sample.device)
        row.text(sample.timeZone)
        row.int(sample.start.utcOffsetSeconds)
        row.int(sample.end.utcOffsetSeconds)
        row.int(sample.createdAt?.epochMilliseconds)
        row.int(sample.createdAt?.utcOffsetSeconds)
        if sample.metadata.isEmpty {
            row.null()
            return true
        }
        json.reset()
        PulsoJSONEncoder.writeMetadata(sample.metadata, into: &json)
        row.textBytes(json.bytes)
        return !json.replacedNUL
    }

    /// The detail as JSON for people and SQL: a workout's parts, correlation members, beats, or the record.
    private static func detail(_ sample: Sample, _ json: inout JSONWriter, into row: inout CopyTextWriter) {
        json.reset()
        switch sample.detail {
        case .none:
            row.null()
            return
        case .workout(let workout):
            json.beginObject()
            PulsoJSONEncoder.writeWorkoutParts(workout, into: &json)
            json.endObject()
        case .correlation(let members):
            json.beginObject()
            json.key("members"); json.beginArray()
            for member in members { json.string(member) }
            json.endArray()
            json.endObject()
        case .heartbeats(let beats):
            json.beginObject()
            json.key("heartbeats"); json.beginArray()
            for beat in beats {
                json.beginObject()
                json.key("time"); json.timestamp(beat.time)
                json.key("bpm"); json.number(beat.beatsPerMinute)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        case .record(let record):
            PulsoJSONEncoder.writeRecord(record, into: &json)
        }
        row.textBytes(json.bytes)
    }

    /// `canonical`: the journal's own encoding of a sample with detail, of one whose metadata keys
    /// jsonb would reorder, or of one whose `metadata` is not `exact` (U+FFFD for U+0000), so
    /// read-back restores it exactly. Another plain sample, which its columns restore, gets NULL, or,
    /// when it came with the user the sink gives samples without one (`defaultUserId`),
    /// `ownUserMarker`: its `user_id` alone cannot say which of the two it was.
    private static func trailer(_ sample: Sample, exact: Bool, _ defaultUserId: String?, sequence: Int64,
                                into row: inout CopyTextWriter) {
        if case .none = sample.detail, exact, JSONBKeyOrder.holds(for: sample.metadata) {
            if let user = sample.userId, user == defaultUserId { row.bytea(ownUserMarker(user)) } else { row.null() }
        } else {
            row.bytea(SampleCodec.encode(.sample(sample)))
        }
        row.int(sequence)
        row.endRow()
    }

    /// The `canonical` of a plain sample that came with the user `user`, the sink's own `user_id`:
    /// a tombstone of no ids under that user in the journal's encoding (`\x020001…`, a few bytes).
    /// Read-back takes the user from it; a healthrouter from before it reads such a row from its
    /// columns (it takes only a sample from `canonical`), as it read every such row.
    static func ownUserMarker(_ user: String) -> [UInt8] {
        SampleCodec.encode(.tombstone(Tombstone(ids: [], userId: user)))
    }
}
