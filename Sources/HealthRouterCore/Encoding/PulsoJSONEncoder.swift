/// Writes canonical samples as Pulso protocol v1.2 sample objects (pulso-protocol.md §1.3),
/// plus healthrouter's additive fields, so that a later replay reproduces the sample exactly.
///
/// Pulso fields (always in Pulso's spelling and units):
/// `uuid`, `type` (the Pulso key, or the identifier of a type Pulso lacks), `start`, `end`
/// (ISO 8601 with the original offset), `value` (a number, or the category name in Pulso's
/// spelling), `unit`, `source`, `sourceBundleId`, `metadata` (string/number/bool values, plus
/// `timeZone`, and `protectionUsed` beside an export's `HKSexualActivityProtectionUsed`, see
/// `PulsoProtectionUsed`), and for workouts `workoutActivityType` (Pulso's case name), `duration`,
/// `totalEnergyBurned`, `totalBasalEnergyBurned`, `totalDistance`, `averageHeartRate`,
/// `minimumHeartRate`, `maximumHeartRate`. Absent values are omitted, never `null`.
///
/// Additive fields (Pulso readers ignore them; each is omitted when it adds nothing):
/// - `identifier`: the HealthKit identifier, when `type` is a short key.
/// - `kind`: the `SampleKind` name (`quantity`, `category`, `workout`, …).
/// - `categoryValue`: the category value as its producer spelled it, when that differs from `value`.
/// - `numericValue`: the number of a sample that has a category value too.
/// - `activityType`: the workout activity type as its producer spelled it, when that differs
///   from `workoutActivityType`.
/// - `timeZone`: the sample's zone, written here (not in `metadata`) only when the metadata
///   already has a `timeZone` key of its own; a replay then keeps the metadata whole.
/// - `sourceVersion`, `device`, `creationDate`, `userId`.
/// - `events`, `statistics`, `activities`, `routes`: a workout's parts (see `writeWorkoutParts`).
/// - `beats`: an HRV beat list, `[{"time":…,"bpm":…}]`.
/// - `members`: a correlation's member ids.
/// - `record`: a record kept whole, `{"element":…,"attributes":{…},"children":[…]}`.
///
/// Timestamps are ISO 8601 via `TimestampFormatter.iso8601`; one whose offset is unknown is
/// written in UTC with the offset `-00:00` (RFC 3339 §4.3: "UTC known, local offset unknown"),
/// which Pulso's parsers read as UTC. A replay maps `metadata.timeZone` to `Sample.timeZone`
/// (removing it from the metadata) unless the top-level `timeZone` is present.
public enum PulsoJSONEncoder {
    /// Writes the fields of `sample`'s object (the caller opens and closes the object, so it
    /// can add fields such as `receivedAt`). `extensions: false` writes Pulso's fields only.
    public static func writeSampleFields(_ sample: Sample, into writer: inout JSONWriter, extensions: Bool = true) {
        let key = typeKey(sample.type)
        writer.key("uuid"); writer.string(sample.id)
        writer.key("type"); writer.string(key)
        writer.key("start"); writer.timestamp(sample.start)
        writer.key("end"); writer.timestamp(sample.end)
        var pulsoCategory: String?
        if let category = sample.categoryValue {
            // Pulso sends none for a mindful session or sexual activity: the extension
            // `categoryValue` below keeps HealthKit's value for healthrouter's own reader.
            if !CategoryValueNames.pulsoOmitsValue(type: sample.type) {
                let name = CategoryValueNames.pulsoName(category, type: sample.type)
                pulsoCategory = name
                writer.key("value"); writer.string(name)
            }
        } else if let value = sample.value {
            writer.key("value"); writer.number(value)
        }
        writer.field("unit", sample.unit)
        writer.key("source"); writer.string(sample.sourceName)
        writer.field("sourceBundleId", sample.sourceBundleId)

        let metadataHasTimeZone = sample.metadata.contains { $0.key == "timeZone" }
        let zoneInMetadata = metadataHasTimeZone ? nil : sample.timeZone
        if !sample.metadata.isEmpty || zoneInMetadata != nil {
            writer.key("metadata")
            // Pulso's `protectionUsed` beside HealthKit's key (an export's sexual activity).
            let protectionUsed = PulsoProtectionUsed.derived(type: sample.type, metadata: sample.metadata)
            writeMetadata(sample.metadata, timeZone: zoneInMetadata, protectionUsed: protectionUsed, into: &writer)
        }

        var workout: Workout?
        if case .workout(let parts) = sample.detail { workout = parts }
        if let workout {
            writer.key("workoutActivityType"); writer.string(pulsoWorkoutActivityType(workout.activityType))
            writer.field("duration", workout.durationSeconds)
            writer.field("totalEnergyBurned", workout.totalEnergyBurnedKilocalories)
            writer.field("totalBasalEnergyBurned", workout.totalBasalEnergyBurnedKilocalories)
            writer.field("totalDistance", workout.totalDistanceMeters)
            writer.field("averageHeartRate", workout.averageHeartRate)
            writer.field("minimumHeartRate", workout.minimumHeartRate)
            writer.field("maximumHeartRate", workout.maximumHeartRate)
        }
        // A Pulso client's fields healthrouter has none for, back where they were sent.
        for field in sample.extraFields {
            writer.key(field.key)
            writer.value(field.value)
        }

        guard extensions else { return }
        if key != sample.type { writer.key("identifier"); writer.string(sample.type) }
        writer.key("kind"); writer.string(sample.kind.name)
        if let category = sample.categoryValue {
            if category != pulsoCategory { writer.key("categoryValue"); writer.string(category) }
            writer.field("numericValue", sample.value)
        }
        if let workout, pulsoWorkoutActivityType(workout.activityType) != workout.activityType {
            writer.key("activityType"); writer.string(workout.activityType)
        }
        if metadataHasTimeZone { writer.field("timeZone", sample.timeZone) }
        writer.field("sourceVersion", sample.sourceVersion)
        writer.field("device", sample.device)
        if let created = sample.createdAt { writer.key("creationDate"); writer.timestamp(created) }
        writer.field("userId", sample.userId)

        switch sample.detail {
        case .none:
            break
        case .workout(let parts):
            writeWorkoutParts(parts, into: &writer)
        case .correlation(let memberIds):
            writer.key("members")
            writer.beginArray()
            for id in memberIds { writer.string(id) }
            writer.endArray()
        case .heartbeats(let beats):
            writer.key("beats")
            writer.beginArray()
            for beat in beats {
                writer.beginObject()
                writer.key("time"); writer.timestamp(beat.time)
                writer.key("bpm"); writer.number(beat.beatsPerMinute)
                writer.endObject()
            }
            writer.endArray()
        case .record(let record):
            writer.key("record")
            writeRecord(record, into: &writer)
        }
    }

    /// Writes a workout's parts as the additive fields `events`, `statistics`, `activities`
    /// and `routes` (each omitted when empty):
    /// - event: `{"type","date","duration"?,"metadata"?}`
    /// - statistic: `{"type","start","end","average"?,"minimum"?,"maximum"?,"sum"?,"unit"?}`
    /// - activity: `{"uuid","activityType"?,"start","end"?,"duration"?,"metadata"?,"events"?,"statistics"?}`
    /// - route: `{"source"?,"start"?,"end"?,"filePath"?,"metadata"?,"points"?}`, a point being
    ///   `{"time","latitude","longitude","altitude"?,"horizontalAccuracy"?,"verticalAccuracy"?,"course"?,"speed"?}`.
    public static func writeWorkoutParts(_ workout: Workout, into writer: inout JSONWriter) {
        writeEvents(workout.events, into: &writer)
        writeStatistics(workout.statistics, into: &writer)
        if !workout.activities.isEmpty {
            writer.key("activities")
            writer.beginArray()
            for activity in workout.activities {
                writer.beginObject()
                writer.key("uuid"); writer.string(activity.id)
                writer.field("activityType", activity.activityType)
                writer.key("start"); writer.timestamp(activity.start)
                if let end = activity.end { writer.key("end"); writer.timestamp(end) }
                writer.field("duration", activity.durationSeconds)
                writeMetadataField(activity.metadata, into: &writer)
                writeEvents(activity.events, into: &writer)
                writeStatistics(activity.statistics, into: &writer)
                writer.endObject()
            }
            writer.endArray()
        }
        if !workout.routes.isEmpty {
            writer.key("routes")
            writer.beginArray()
            for route in workout.routes {
                writer.beginObject()
                writer.field("source", route.sourceName)
                if let start = route.start { writer.key("start"); writer.timestamp(start) }
                if let end = route.end { writer.key("end"); writer.timestamp(end) }
                writer.field("filePath", route.filePath)
                writeMetadataField(route.metadata, into: &writer)
                if !route.points.isEmpty {
                    writer.key("points")
                    writer.beginArray()
                    for point in route.points {
                        writer.beginObject()
                        writer.key("time"); writer.timestamp(point.time)
                        writer.key("latitude"); writer.number(point.latitude)
                        writer.key("longitude"); writer.number(point.longitude)
                        writer.field("altitude", point.altitude)
                        writer.field("horizontalAccuracy", point.horizontalAccuracy)
                        writer.field("verticalAccuracy", point.verticalAccuracy)
                        writer.field("course", point.course)
                        writer.field("speed", point.speed)
                        writer.endObject()
                    }
                    writer.endArray()
                }
                writer.endObject()
            }
            writer.endArray()
        }
    }

    /// Writes `metadata` as an object value (keys in the producer's order), `timeZone` first when
    /// given, and `protectionUsed` (`PulsoProtectionUsed`) right after HealthKit's key when given.
    public static func writeMetadata(_ metadata: [MetadataEntry], timeZone: String? = nil, protectionUsed: Bool? = nil,
                                     into writer: inout JSONWriter) {
        writer.beginObject()
        if let timeZone { writer.key("timeZone"); writer.string(timeZone) }
        var protectionUsed = protectionUsed
        for entry in metadata {
            writer.key(entry.key)
            writer.value(entry.value)
            if let flag = protectionUsed, entry.key == PulsoProtectionUsed.healthKitKey {
                writer.key(PulsoProtectionUsed.pulsoKey); writer.bool(flag)
                protectionUsed = nil
            }
        }
        writer.endObject()
    }



    /// Writes `record` as an object value: `{"element":…,"attributes":{name:value,…},"children":[…]}`,
    /// attributes in document order, `children` omitted when there are none.
    public static func writeRecord(_ record: GenericRecord, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("element"); writer.string(record.element)
        writer.key("attributes"); writeAttributes(record.attributes, into: &writer)
        if !record.children.isEmpty {
            writer.key("children"); writeRecords(record.children, into: &writer)
        }
        writer.endObject()
    }

    /// Writes attributes as an object value, in document order.
    public static func writeAttributes(_ attributes: [GenericRecord.Attribute], into writer: inout JSONWriter) {
        writer.beginObject()
        for attribute in attributes {
            writer.key(attribute.name); writer.string(attribute.value)
        }
        writer.endObject()
    }

    /// Writes records as an array value of `writeRecord` objects.
    public static func writeRecords(_ records: [GenericRecord], into writer: inout JSONWriter) {
        writer.beginArray()
        for child in records { writeRecord(child, into: &writer) }
        writer.endArray()
    }

    /// The `type` Pulso uses for a HealthKit identifier: its short key when the registry
    /// has one, otherwise the identifier itself.
    public static func typeKey(_ identifier: String) -> String {
        TypeRegistry.type(identifier: identifier)?.key ?? identifier
    }

    /// Pulso's name for a workout activity type: HealthKit's `HKWorkoutActivityTypeRunning`
    /// becomes the Swift case name `running`, a raw value HealthKit had no name for
    /// (`HKWorkoutActivityType3000`) Pulso's `activity_3000`; any other spelling is returned unchanged.
    public static func pulsoWorkoutActivityType(_ name: String) -> String {
        let prefix = "HKWorkoutActivityType"
        guard name.hasPrefix(prefix), name.utf8.count > prefix.utf8.count else { return name }
        let rest = name.dropFirst(prefix.count)
        if rest.allSatisfy({ $0.isASCII && $0.isNumber }) { return "activity_" + rest }
        guard let first = rest.first, first.isUppercase else { return name }
        return first.lowercased() + rest.dropFirst()
    }

    private static func writeMetadataField(_ metadata: [MetadataEntry], into writer: inout JSONWriter) {
        guard !metadata.isEmpty else { return }
        writer.key("metadata")
        writeMetadata(metadata, into: &writer)
    }

    private static func writeEvents(_ events: [WorkoutEvent], into writer: inout JSONWriter) {
        guard !events.isEmpty else { return }
        writer.key("events")
        writer.beginArray()
        for event in events {
            writer.beginObject()
            writer.key("type"); writer.string(event.type)
            writer.key("date"); writer.timestamp(event.date)
            writer.field("duration", event.durationSeconds)
            writeMetadataField(event.metadata, into: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    private static func writeStatistics(_ statistics: [WorkoutStatistic], into writer: inout JSONWriter) {
        guard !statistics.isEmpty else { return }
        writer.key("statistics")
        writer.beginArray()
        for statistic in statistics {
            writer.beginObject()
            writer.key("type"); writer.string(statistic.type)
            writer.key("start"); writer.timestamp(statistic.start)
            writer.key("end"); writer.timestamp(statistic.end)
            writer.field("average", statistic.average)
            writer.field("minimum", statistic.minimum)
            writer.field("maximum", statistic.maximum)
            writer.field("sum", statistic.sum)
            writer.field("unit", statistic.unit)
            writer.endObject()
        }
        writer.endArray()
    }
}
