/// Reads the lines `PulsoJSONEncoder` writes back into canonical items: the counterpart that
/// makes an NDJSON line (ndjson sink, `healthrouter dump`, Pulso's reference server) a
/// `HealthItem` again. The field meanings are `PulsoJSONEncoder`'s.
///
/// - A line with `deleted` is a tombstone (even with a `uuid`, as Pulso's servers read it):
///   its string ids, and `userId`.
/// - `type` is `identifier` when present, else the registry's identifier for the key, else
///   itself; `kind` names the kind, else the registry's kind, else `workout` when
///   `workoutActivityType` is present, `category` for a string `value`, `quantity` otherwise.
/// - `categoryValue` wins over a string `value`; `numericValue` is the number of a category.
/// - `metadata.timeZone` becomes `Sample.timeZone` and leaves the metadata, unless a
///   top-level `timeZone` is present (then the metadata stays whole).
/// - In a line healthrouter wrote (`kind` given), a sexual activity's `metadata.protectionUsed`
///   beside an equal `HKSexualActivityProtectionUsed` is the encoder's and leaves the metadata
///   (`PulsoProtectionUsed`).
/// - A `-00:00` offset means "unknown" (`utcOffsetSeconds == nil`).
/// - `receivedAt` is ignored; other fields it does not know (a newer Pulso client's additive
///   ones) are the sample's `extraFields`.
///
/// `isPulsoLine` in the result tells a plain Pulso line (no `kind`: written by a Pulso
/// server, not by healthrouter) — the caller normalises those as `.canonical`.
public enum PulsoJSONDecoder {
    /// A line that cannot become an item: what is wrong with it.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var problem: String
        /// Whether the line is not shaped like a sample or tombstone at all (not JSON, not an
        /// object, no uuid, type or start): a file of such lines is another format, where a
        /// sample with a bad value is a bad line of the right format.
        public var notASample: Bool
        public init(_ problem: String, notASample: Bool = false) {
            self.problem = problem
            self.notASample = notASample
        }
        public var description: String { problem }
    }

    /// Decodes one line (a JSON object). Throws `Failure` naming what is wrong. With
    /// `rejectingLoneSurrogates`, a `\u` escape of half a UTF-16 surrogate pair (`"\ud800"`) is
    /// wrong too (else it reads as U+FFFD).
    public static func decode(_ line: ArraySlice<UInt8>, rejectingLoneSurrogates: Bool = false) throws
        -> (item: HealthItem, isPulsoLine: Bool) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, rejectingLoneSurrogates: rejectingLoneSurrogates)
        } catch let error as JSONParser.Failure {
            throw Failure("not JSON: \(error)", notASample: true)
        }
        return try decode(value)
    }

    /// Decodes one parsed line.
    public static func decode(_ object: JSONValue) throws -> (item: HealthItem, isPulsoLine: Bool) {
        guard case .object = object else { throw Failure("not a JSON object", notASample: true) }
        if let deleted = object["deleted"] {
            let ids = deleted.arrayValue?.compactMap(\.stringValue) ?? []
            return (.tombstone(Tombstone(ids: ids, userId: object["userId"]?.stringValue)), object["kind"] == nil)
        }
        guard let id = object["uuid"]?.stringValue else { throw Failure("uuid: missing or not a string", notASample: true) }
        guard !id.isEmpty else { throw Failure("uuid: empty") }
        // Without `type`, `unknown`: as a Pulso server files such a sample (`unknown.ndjson`), and
        // as the push source takes it.
        let key: String
        if let given = object["type"] {
            guard let text = given.stringValue else { throw Failure("type is not a string") }
            key = text
        } else {
            key = "unknown"
        }
        let type = object["identifier"]?.stringValue ?? TypeRegistry.identifier(of: key)
        guard let startText = object["start"]?.stringValue else { throw Failure("start: missing or not a string", notASample: true) }
        guard let start = timestamp(startText) else { throw Failure("start '\(startText)' is not a date") }
        var end = start
        if let endText = try optionalString(object, "end") {
            guard let parsed = timestamp(endText) else { throw Failure("end '\(endText)' is not a date") }
            end = parsed
        }

        let kindName = object["kind"]?.stringValue
        let kind: SampleKind
        if let kindName {
            guard let named = SampleKind.allCases.first(where: { $0.name == kindName }) else {
                throw Failure("unknown kind '\(kindName)'")
            }
            kind = named
        } else if let known = TypeRegistry.type(identifier: type) {
            kind = known.kind
        } else if object["workoutActivityType"] != nil {
            kind = .workout
        } else if object["value"]?.stringValue != nil {
            kind = .category
        } else {
            kind = .quantity
        }

        var sample = Sample(id: id, type: type, kind: kind, start: start, end: end,
                            sourceName: object["source"]?.stringValue ?? "")
        // A Pulso line (no `kind`: Pulso's server, or a client's file) names a category value and
        // a workout's activity as Pulso does (`asleepREM`, `running`): stored under HealthKit's
        // names, as a push of the same line and an export store them, so that one query finds all.
        let isPulsoLine = kindName == nil
        switch object["value"] {
        case .number(let number): sample.value = number
        case .string(let name): sample.categoryValue = isPulsoLine ? CategoryValueNames.healthKitName(name, type: type) : name
        default: break
        }
        if let category = object["categoryValue"]?.stringValue { sample.categoryValue = category }
        if let number = object["numericValue"]?.numberValue { sample.value = number }
        sample.unit = object["unit"]?.stringValue
        sample.sourceBundleId = object["sourceBundleId"]?.stringValue
        sample.sourceVersion = object["sourceVersion"]?.stringValue
        sample.device = object["device"]?.stringValue
        sample.userId = try optionalString(object, "userId")
        if let created = try optionalString(object, "creationDate") { sample.createdAt = timestamp(created) }

        var metadata = object["metadata"].map(self.metadata) ?? []
        if let zone = try optionalString(object, "timeZone") {
            sample.timeZone = zone
        } else if let index = metadata.firstIndex(where: { $0.key == "timeZone" }),
                  case .string(let zone) = metadata[index].value {
            sample.timeZone = zone
            metadata.remove(at: index)
        }
        // The `protectionUsed` the encoder adds beside HealthKit's key (a Pulso line keeps its own).
        if !isPulsoLine { PulsoProtectionUsed.removeDerived(type: type, from: &metadata) }
        sample.metadata = metadata

        if let activity = object["activityType"]?.stringValue
            ?? object["workoutActivityType"]?.stringValue.map({ isPulsoLine ? WorkoutActivityName.healthKitName($0) : $0 }) {
            var workout = Workout(activityType: activity)
            workout.durationSeconds = object["duration"]?.numberValue
            workout.totalEnergyBurnedKilocalories = object["totalEnergyBurned"]?.numberValue
            workout.totalBasalEnergyBurnedKilocalories = object["totalBasalEnergyBurned"]?.numberValue
            workout.totalDistanceMeters = object["totalDistance"]?.numberValue
            workout.averageHeartRate = object["averageHeartRate"]?.numberValue
            workout.minimumHeartRate = object["minimumHeartRate"]?.numberValue
            workout.maximumHeartRate = object["maximumHeartRate"]?.numberValue
            workout.events = try events(object["events"])
            workout.statistics = try statistics(object["statistics"])
            workout.activities = try activities(object["activities"])
            workout.routes = try routes(object["routes"])
            sample.detail = .workout(workout)
        } else if let members = object["members"]?.arrayValue {
            sample.detail = .correlation(memberIds: members.compactMap(\.stringValue))
        } else if let beats = object["beats"]?.arrayValue {
            sample.detail = .heartbeats(try beats.map { beat in
                Heartbeat(time: try requiredTime(beat["time"], "beat time"), beatsPerMinute: beat["bpm"]?.numberValue ?? 0)
            })
        } else if let record = object["record"] {
            sample.detail = .record(try self.record(record))
        }
        if case .object(let fields) = object {
            for (key, value) in fields where !knownFields.contains(key) {
                if let converted = metadataValue(value, nestedAsJSON: true) { sample.extraFields.append(MetadataEntry(key, converted)) }
            }
            sample.extraFields = sample.extraFields.lastOfEachKeySorted()
        }
        return (.sample(sample), kindName == nil)
    }

    /// The top-level fields a sample line may have that are not `extraFields`: Pulso's, the
    /// encoder's additive ones, and `receivedAt` (the ndjson sink's and Pulso's server's).
    public static let knownFields: Set<String> = [
        "uuid", "type", "start", "end", "value", "unit", "source", "sourceBundleId", "metadata", "deleted",
        "identifier", "kind", "categoryValue", "numericValue", "sourceVersion", "device", "creationDate", "timeZone",
        "userId", "workoutActivityType", "activityType", "duration", "totalEnergyBurned", "totalBasalEnergyBurned",
        "totalDistance", "averageHeartRate", "minimumHeartRate", "maximumHeartRate", "events", "statistics",
        "activities", "routes", "members", "beats", "record", "receivedAt",
    ]

    /// A timestamp as the encoder writes it: `-00:00` is an unknown offset.
    public static func timestamp(_ text: String) -> Timestamp? {
        guard var parsed = HealthDateParser.parse(text) else { return nil }
        if text.hasSuffix("-00:00") { parsed.utcOffsetSeconds = nil }
        return parsed
    }

    /// A metadata object as entries in document order. Pulso allows only strings, numbers and
    /// booleans; an array or object another producer sends is kept as its compact JSON text (a
    /// string, keys sorted by their bytes, as the push source's Foundation path writes it too),
    /// not dropped; a null is no value.
    public static func metadata(_ value: JSONValue) -> [MetadataEntry] {
        guard let pairs = value.objectValue else { return [] }
        var entries: [MetadataEntry] = []
        entries.reserveCapacity(pairs.count)
        for pair in pairs {
            if let converted = metadataValue(pair.value) { entries.append(MetadataEntry(pair.key, converted)) }
        }
        // A key given twice counts once, with its last value, where that stands (as a push reads it).
        return entries.lastOfEachKey()
    }

    /// One metadata value (see `metadata`): nil for a null. An object or array is its compact JSON
    /// (keys sorted): as a string in metadata, as JSON itself (`nestedAsJSON`) in an additive field.
    public static func metadataValue(_ value: JSONValue, nestedAsJSON: Bool = false) -> MetadataValue? {
        switch value {
        case .string(let text): return .string(text)
        case .number(let number): return .number(number)
        case .bool(let flag): return .bool(flag)
        case .array, .object:
            var text = JSONWriter(capacity: 64)
            text.value(value, sortingKeys: true)
            return nestedAsJSON ? .json(text.text) : .string(text.text)
        case .null: return nil
        }
    }

    /// A record object, `{"element","attributes":{…},"children"?:[…]}`.
    public static func record(_ value: JSONValue) throws -> GenericRecord {
        guard let element = value["element"]?.stringValue else { throw Failure("record without element") }
        let attributes = (value["attributes"]?.objectValue ?? []).map {
            GenericRecord.Attribute($0.key, $0.value.stringValue ?? "")
        }
        return GenericRecord(element: element, attributes: attributes, children: try records(value["children"]))
    }

    /// An array of record objects (nil: none).
    public static func records(_ value: JSONValue?) throws -> [GenericRecord] {
        try (value?.arrayValue ?? []).map(record)
    }

    /// The string at `key`: nil when absent or null; another value is a broken line (an `end`
    /// written as epoch seconds read as absent made a sleep stage last no time; a `userId` that
    /// is a number gave the sample to no user).
    private static func optionalString(_ object: JSONValue, _ key: String) throws -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw Failure("\(key) is not a string") }
        return text
    }

    private static func requiredTime(_ value: JSONValue?, _ field: String) throws -> Timestamp {
        guard let text = value?.stringValue, let time = timestamp(text) else { throw Failure("bad or missing \(field)") }
        return time
    }

    private static func optionalTime(_ value: JSONValue?, _ field: String) throws -> Timestamp? {
        guard let value else { return nil }
        return try requiredTime(value, field)
    }

    /// The entries of a part's list (`events`, `routes`, a route's `points`, …): none when absent or
    /// null; another value is a broken line, not an empty list.
    private static func list(_ value: JSONValue?, _ field: String) throws -> [JSONValue] {
        guard let value, value != .null else { return [] }
        guard let entries = value.arrayValue else { throw Failure("\(field) is not a list") }
        return entries
    }

    /// A coordinate of a route point: a number (a point at 0,0 would be made up).
    private static func coordinate(_ point: JSONValue, _ field: String) throws -> Double {
        guard let number = point[field]?.numberValue else { throw Failure("route point without a numeric \(field)") }
        return number
    }

    private static func events(_ value: JSONValue?) throws -> [WorkoutEvent] {
        try list(value, "events").map { event in
            WorkoutEvent(type: event["type"]?.stringValue ?? "", date: try requiredTime(event["date"], "event date"),
                         durationSeconds: event["duration"]?.numberValue,
                         metadata: event["metadata"].map(metadata) ?? [])
        }
    }

    private static func statistics(_ value: JSONValue?) throws -> [WorkoutStatistic] {
        try list(value, "statistics").map { s in
            WorkoutStatistic(type: s["type"]?.stringValue ?? "", start: try requiredTime(s["start"], "statistic start"),
                             end: try requiredTime(s["end"], "statistic end"), average: s["average"]?.numberValue,
                             minimum: s["minimum"]?.numberValue, maximum: s["maximum"]?.numberValue,
                             sum: s["sum"]?.numberValue, unit: s["unit"]?.stringValue)
        }
    }

    private static func activities(_ value: JSONValue?) throws -> [WorkoutActivity] {
        try list(value, "activities").map { a in
            WorkoutActivity(id: a["uuid"]?.stringValue ?? "", activityType: a["activityType"]?.stringValue,
                            start: try requiredTime(a["start"], "activity start"),
                            end: try optionalTime(a["end"], "activity end"),
                            durationSeconds: a["duration"]?.numberValue, metadata: a["metadata"].map(metadata) ?? [],
                            events: try events(a["events"]), statistics: try statistics(a["statistics"]))
        }
    }

    private static func routes(_ value: JSONValue?) throws -> [WorkoutRoute] {
        try list(value, "routes").map { r in
            WorkoutRoute(sourceName: r["source"]?.stringValue, start: try optionalTime(r["start"], "route start"),
                         end: try optionalTime(r["end"], "route end"), filePath: r["filePath"]?.stringValue,
                         metadata: r["metadata"].map(metadata) ?? [],
                         // A point at no place on Earth or with a number out of range (one an earlier
                         // build journaled) is left out, as the other sources leave it out, not its workout.
                         points: try list(r["points"], "route points").map { p in
                             RoutePoint(time: try requiredTime(p["time"], "route point time"),
                                        latitude: try coordinate(p, "latitude"), longitude: try coordinate(p, "longitude"),
                                        altitude: p["altitude"]?.numberValue,
                                        horizontalAccuracy: p["horizontalAccuracy"]?.numberValue,
                                        verticalAccuracy: p["verticalAccuracy"]?.numberValue,
                                        course: p["course"]?.numberValue, speed: p["speed"]?.numberValue)
                         }.filter(\.isUsable))
        }
    }
}
