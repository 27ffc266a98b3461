/// The journal's binary encoding of a `HealthItem`: compact and fast both ways,
/// versioned by its first byte. Entries written by one version must stay readable by
/// every later one: add fields behind new presence bits, never reuse a bit.
public enum SampleCodec {
    static let sampleTag: UInt8 = 1
    static let tombstoneTag: UInt8 = 2

    // Presence bits of a sample's optional fields.
    private static let hasTimeZone: UInt32 = 1 << 0
    private static let hasValue: UInt32 = 1 << 1
    private static let hasUnit: UInt32 = 1 << 2
    private static let hasCategory: UInt32 = 1 << 3
    private static let hasSourceVersion: UInt32 = 1 << 4
    private static let hasBundle: UInt32 = 1 << 5
    private static let hasDevice: UInt32 = 1 << 6
    private static let hasCreated: UInt32 = 1 << 7
    private static let hasUser: UInt32 = 1 << 8
    private static let hasMetadata: UInt32 = 1 << 9
    private static let hasExtraFields: UInt32 = 1 << 10

    /// Encodes `item` into `writer` (which the caller resets between items).
    public static func encode(_ item: HealthItem, into w: inout ByteWriter) {
        switch item {
        case .tombstone(let tombstone):
            w.byte(tombstoneTag)
            w.varint(UInt64(tombstone.ids.count))
            for id in tombstone.ids { w.string(id) }
            optionalString(tombstone.userId, &w)
        case .sample(let s):
            encode(sample: s, into: &w)
        }
    }

    /// Encodes a sample as `encode(.sample(s), into:)` does, without wrapping it in an item
    /// (a copy of every field of the sample, retained and released, on the journal's hot path).
    public static func encode(sample s: Sample, into w: inout ByteWriter) {
        w.byte(sampleTag)
        var flags: UInt32 = 0
        if s.timeZone != nil { flags |= hasTimeZone }
        if s.value != nil { flags |= hasValue }
        if s.unit != nil { flags |= hasUnit }
        if s.categoryValue != nil { flags |= hasCategory }
        if s.sourceVersion != nil { flags |= hasSourceVersion }
        if s.sourceBundleId != nil { flags |= hasBundle }
        if s.device != nil { flags |= hasDevice }
        if s.createdAt != nil { flags |= hasCreated }
        if s.userId != nil { flags |= hasUser }
        if !s.metadata.isEmpty { flags |= hasMetadata }
        if !s.extraFields.isEmpty { flags |= hasExtraFields }
        w.varint(UInt64(flags))
        w.string(s.id)
        w.string(s.type)
        w.byte(s.kind.rawValue)
        timestamp(s.start, &w)
        timestamp(s.end, &w)
        w.string(s.sourceName)
        if let v = s.timeZone { w.string(v) }
        if let v = s.value { w.double(v) }
        if let v = s.unit { w.string(v) }
        if let v = s.categoryValue { w.string(v) }
        if let v = s.sourceVersion { w.string(v) }
        if let v = s.sourceBundleId { w.string(v) }
        if let v = s.device { w.string(v) }
        if let v = s.createdAt { timestamp(v, &w) }
        if let v = s.userId { w.string(v) }
        if !s.metadata.isEmpty { metadata(s.metadata, &w) }
        if !s.extraFields.isEmpty { metadata(s.extraFields, &w) }
        detail(s.detail, &w)
    }

    /// Encodes `item` into a fresh byte array.
    public static func encode(_ item: HealthItem) -> [UInt8] {
        var w = ByteWriter()
        encode(item, into: &w)
        return w.bytes
    }

    /// Decodes what `encode` wrote.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws -> HealthItem {
        var r = ByteReader(bytes)
        switch try r.byte() {
        case tombstoneTag:
            var ids: [String] = []
            for _ in 0..<(try r.count()) { ids.append(try r.string()) }
            return .tombstone(Tombstone(ids: ids, userId: try optionalString(&r)))
        case sampleTag:
            let flags = UInt32(truncatingIfNeeded: try r.varint())
            let id = try r.string()
            let type = try r.string()
            guard let kind = SampleKind(rawValue: try r.byte()) else { throw ByteReader.Truncated() }
            let start = try timestamp(&r)
            let end = try timestamp(&r)
            let sourceName = try r.string()
            var s = Sample(id: id, type: type, kind: kind, start: start, end: end, sourceName: sourceName)
            if flags & hasTimeZone != 0 { s.timeZone = try r.string() }
            if flags & hasValue != 0 { s.value = try r.double() }
            if flags & hasUnit != 0 { s.unit = try r.string() }
            if flags & hasCategory != 0 { s.categoryValue = try r.string() }
            if flags & hasSourceVersion != 0 { s.sourceVersion = try r.string() }
            if flags & hasBundle != 0 { s.sourceBundleId = try r.string() }
            if flags & hasDevice != 0 { s.device = try r.string() }
            if flags & hasCreated != 0 { s.createdAt = try timestamp(&r) }
            if flags & hasUser != 0 { s.userId = try r.string() }
            if flags & hasMetadata != 0 { s.metadata = try metadata(&r) }
            if flags & hasExtraFields != 0 { s.extraFields = try metadata(&r) }
            s.detail = try detail(&r)
            return .sample(s)
        default:
            throw ByteReader.Truncated()
        }
    }

    public static func decode(_ bytes: [UInt8]) throws -> HealthItem {
        try bytes.withUnsafeBytes { try decode($0) }
    }

    // MARK: - Parts

    private static func optionalString(_ value: String?, _ w: inout ByteWriter) {
        if let value { w.byte(1); w.string(value) } else { w.byte(0) }
    }

    private static func optionalString(_ r: inout ByteReader) throws -> String? {
        try r.byte() == 1 ? try r.string() : nil
    }

    private static func optionalDouble(_ value: Double?, _ w: inout ByteWriter) {
        if let value { w.byte(1); w.double(value) } else { w.byte(0) }
    }

    private static func optionalDouble(_ r: inout ByteReader) throws -> Double? {
        try r.byte() == 1 ? try r.double() : nil
    }

    private static func timestamp(_ t: Timestamp, _ w: inout ByteWriter) {
        w.signed(t.epochMilliseconds)
        // Offsets are whole seconds within ±18 h; 0x7FFF_FFFF marks "unknown".
        guard !w.omitsOffsets else { return }
        let start = w.bytes.count
        w.signed(Int64(t.utcOffsetSeconds ?? Int32.max))
        if w.marksOffsets { w.markOffset(from: start) }
    }

    private static func timestamp(_ r: inout ByteReader) throws -> Timestamp {
        let ms = try r.signed()
        let offset = try r.signed()
        return Timestamp(epochMilliseconds: ms, utcOffsetSeconds: offset == Int64(Int32.max) ? nil : Int32(truncatingIfNeeded: offset))
    }

    private static func optionalTimestamp(_ t: Timestamp?, _ w: inout ByteWriter) {
        if let t { w.byte(1); timestamp(t, &w) } else { w.byte(0) }
    }

    private static func optionalTimestamp(_ r: inout ByteReader) throws -> Timestamp? {
        try r.byte() == 1 ? try timestamp(&r) : nil
    }

    private static func metadata(_ entries: [MetadataEntry], _ w: inout ByteWriter) {
        w.varint(UInt64(entries.count))
        for entry in entries {
            w.string(entry.key)
            metadataValue(entry.value, &w)
        }
    }

    private static func metadataValue(_ value: MetadataValue, _ w: inout ByteWriter) {
        switch value {
        case .string(let v): w.byte(0); w.string(v)
        case .number(let v): w.byte(1); w.double(v)
        case .bool(let v): w.byte(v ? 3 : 2)
        case .json(let v): w.byte(4); w.string(v)
        }
    }

    /// A route's other attributes for a hash without offsets: a date among them
    /// (`creationDate="2021-12-31 08:10:49 -0700"`, kept as the export wrote it) is its instant,
    /// so that an export written at another offset is the same workout.
    private static func routeAttributes(_ entries: [MetadataEntry], _ w: inout ByteWriter) {
        w.varint(UInt64(entries.count))
        for entry in entries {
            w.string(entry.key)
            if case .string(let text) = entry.value, let instant = routeAttributeInstant(text) {
                w.byte(4)
                w.signed(instant.epochMilliseconds)
            } else {
                metadataValue(entry.value, &w)
            }
        }
    }

    /// The instant a route attribute's text is, when it is a date (as a record's attributes are read).
    public static func routeAttributeInstant(_ text: String) -> Timestamp? {
        text.utf8.count >= 19 ? HealthDateParser.parse(text) : nil
    }

    /// Whether `workout` has a route attribute that is a date: its hash without offsets is not
    /// the full encoding with the offsets' bytes skipped.
    public static func hasRouteAttributeDates(_ workout: Workout) -> Bool {
        workout.routes.contains { route in
            route.metadata.contains { entry in
                if case .string(let text) = entry.value { return routeAttributeInstant(text) != nil }
                return false
            }
        }
    }

    private static func metadata(_ r: inout ByteReader) throws -> [MetadataEntry] {
        var entries: [MetadataEntry] = []
        for _ in 0..<(try r.count()) {
            let key = try r.string()
            switch try r.byte() {
            case 0: entries.append(MetadataEntry(key, .string(try r.string())))
            case 1: entries.append(MetadataEntry(key, .number(try r.double())))
            case 2: entries.append(MetadataEntry(key, .bool(false)))
            case 3: entries.append(MetadataEntry(key, .bool(true)))
            case 4: entries.append(MetadataEntry(key, .json(try r.string())))
            default: throw ByteReader.Truncated()
            }
        }
        return entries
    }

    private static func detail(_ detail: SampleDetail, _ w: inout ByteWriter) {
        switch detail {
        case .none:
            w.byte(0)
        case .workout(let workout):
            w.byte(1)
            encodeWorkout(workout, &w)
        case .correlation(let members):
            w.byte(2)
            w.varint(UInt64(members.count))
            for m in members { w.string(m) }
        case .heartbeats(let beats):
            w.byte(3)
            w.varint(UInt64(beats.count))
            for b in beats { timestamp(b.time, &w); w.double(b.beatsPerMinute) }
        case .record(let record):
            w.byte(4)
            encodeRecord(record, &w)
        }
    }

    private static func detail(_ r: inout ByteReader) throws -> SampleDetail {
        switch try r.byte() {
        case 0: return .none
        case 1: return .workout(try decodeWorkout(&r))
        case 2:
            var members: [String] = []
            for _ in 0..<(try r.count()) { members.append(try r.string()) }
            return .correlation(memberIds: members)
        case 3:
            var beats: [Heartbeat] = []
            for _ in 0..<(try r.count()) {
                let time = try timestamp(&r)
                beats.append(Heartbeat(time: time, beatsPerMinute: try r.double()))
            }
            return .heartbeats(beats)
        case 4: return .record(try decodeRecord(&r))
        default: throw ByteReader.Truncated()
        }
    }

    private static func encodeRecord(_ record: GenericRecord, _ w: inout ByteWriter) {
        w.string(record.element)
        w.varint(UInt64(record.attributes.count))
        for a in record.attributes {
            w.string(a.name)
            // For a hash without offsets, a date attribute (`receivedDate="2022-05-01 09:00:00 -0700"`) is its instant.
            if w.omitsOffsets, let instant = a.instant {
                w.signed(instant.epochMilliseconds)
            } else {
                w.string(a.value)
            }
        }
        w.varint(UInt64(record.children.count))
        for child in record.children { encodeRecord(child, &w) }
    }

    private static func decodeRecord(_ r: inout ByteReader) throws -> GenericRecord {
        var record = GenericRecord(element: try r.string())
        for _ in 0..<(try r.count()) {
            let name = try r.string()
            record.attributes.append(.init(name, try r.string()))
        }
        for _ in 0..<(try r.count()) { record.children.append(try decodeRecord(&r)) }
        return record
    }

    private static func encodeWorkout(_ wo: Workout, _ w: inout ByteWriter) {
        w.string(wo.activityType)
        for v in [wo.durationSeconds, wo.totalDistanceMeters, wo.totalEnergyBurnedKilocalories,
                  wo.totalBasalEnergyBurnedKilocalories, wo.averageHeartRate, wo.minimumHeartRate,
                  wo.maximumHeartRate] { optionalDouble(v, &w) }
        encodeEvents(wo.events, &w)
        encodeStatistics(wo.statistics, &w)
        w.varint(UInt64(wo.activities.count))
        for a in wo.activities {
            w.string(a.id)
            optionalString(a.activityType, &w)
            timestamp(a.start, &w)
            optionalTimestamp(a.end, &w)
            optionalDouble(a.durationSeconds, &w)
            metadata(a.metadata, &w)
            encodeEvents(a.events, &w)
            encodeStatistics(a.statistics, &w)
        }
        w.varint(UInt64(wo.routes.count))
        for route in wo.routes {
            optionalString(route.sourceName, &w)
            optionalTimestamp(route.start, &w)
            optionalTimestamp(route.end, &w)
            optionalString(route.filePath, &w)
            if w.omitsOffsets {
                routeAttributes(route.metadata, &w)
            } else {
                metadata(route.metadata, &w)
            }
            w.varint(UInt64(route.points.count))
            for p in route.points {
                timestamp(p.time, &w)
                w.double(p.latitude)
                w.double(p.longitude)
                for v in [p.altitude, p.horizontalAccuracy, p.verticalAccuracy, p.course, p.speed] { optionalDouble(v, &w) }
            }
        }
    }

    private static func decodeWorkout(_ r: inout ByteReader) throws -> Workout {
        var wo = Workout(activityType: try r.string())
        wo.durationSeconds = try optionalDouble(&r)
        wo.totalDistanceMeters = try optionalDouble(&r)
        wo.totalEnergyBurnedKilocalories = try optionalDouble(&r)
        wo.totalBasalEnergyBurnedKilocalories = try optionalDouble(&r)
        wo.averageHeartRate = try optionalDouble(&r)
        wo.minimumHeartRate = try optionalDouble(&r)
        wo.maximumHeartRate = try optionalDouble(&r)
        wo.events = try decodeEvents(&r)
        wo.statistics = try decodeStatistics(&r)
        for _ in 0..<(try r.count()) {
            let id = try r.string()
            let type = try optionalString(&r)
            let start = try timestamp(&r)
            var a = WorkoutActivity(id: id, activityType: type, start: start)
            a.end = try optionalTimestamp(&r)
            a.durationSeconds = try optionalDouble(&r)
            a.metadata = try metadata(&r)
            a.events = try decodeEvents(&r)
            a.statistics = try decodeStatistics(&r)
            wo.activities.append(a)
        }
        for _ in 0..<(try r.count()) {
            var route = WorkoutRoute()
            route.sourceName = try optionalString(&r)
            route.start = try optionalTimestamp(&r)
            route.end = try optionalTimestamp(&r)
            route.filePath = try optionalString(&r)
            route.metadata = try metadata(&r)
            let n = try r.count()
            route.points.reserveCapacity(n)
            for _ in 0..<n {
                let time = try timestamp(&r)
                let lat = try r.double()
                let lon = try r.double()
                route.points.append(RoutePoint(time: time, latitude: lat, longitude: lon,
                                               altitude: try optionalDouble(&r), horizontalAccuracy: try optionalDouble(&r),
                                               verticalAccuracy: try optionalDouble(&r), course: try optionalDouble(&r),
                                               speed: try optionalDouble(&r)))
            }
            wo.routes.append(route)
        }
        return wo
    }

    private static func encodeEvents(_ events: [WorkoutEvent], _ w: inout ByteWriter) {
        w.varint(UInt64(events.count))
        for e in events {
            w.string(e.type)
            timestamp(e.date, &w)
            optionalDouble(e.durationSeconds, &w)
            metadata(e.metadata, &w)
        }
    }

    private static func decodeEvents(_ r: inout ByteReader) throws -> [WorkoutEvent] {
        var events: [WorkoutEvent] = []
        for _ in 0..<(try r.count()) {
            let type = try r.string()
            let date = try timestamp(&r)
            events.append(WorkoutEvent(type: type, date: date, durationSeconds: try optionalDouble(&r), metadata: try metadata(&r)))
        }
        return events
    }

    private static func encodeStatistics(_ statistics: [WorkoutStatistic], _ w: inout ByteWriter) {
        w.varint(UInt64(statistics.count))
        for s in statistics {
            w.string(s.type)
            timestamp(s.start, &w)
            timestamp(s.end, &w)
            for v in [s.average, s.minimum, s.maximum, s.sum] { optionalDouble(v, &w) }
            optionalString(s.unit, &w)
        }
    }

    private static func decodeStatistics(_ r: inout ByteReader) throws -> [WorkoutStatistic] {
        var statistics: [WorkoutStatistic] = []
        for _ in 0..<(try r.count()) {
            let type = try r.string()
            let start = try timestamp(&r)
            let end = try timestamp(&r)
            statistics.append(WorkoutStatistic(type: type, start: start, end: end, average: try optionalDouble(&r),
                                                minimum: try optionalDouble(&r), maximum: try optionalDouble(&r),
                                                sum: try optionalDouble(&r), unit: try optionalString(&r)))
        }
        return statistics
    }
}
