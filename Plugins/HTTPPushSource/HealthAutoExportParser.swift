import Foundation
import HealthRouterCore

/// Turns a Health Auto Export REST API body (`{"data":{"metrics":[…],"workouts":[…]}}`,
/// health-auto-export.md §3) into canonical items. HAE carries no per-sample ids: every
/// sample gets a fingerprint id, so a re-sent export is recognised as duplicates.
///
/// - Metric data points with `qty` become quantity samples at `date` (or `startDate`…`endDate`),
///   in the metric's `units` converted to canonical (`kJ`, `mi`, `degF`, `lb`, …).
/// - `heart_rate` `Min`/`Avg`/`Max`: one sample valued `Avg`, with `Min` and `Max` in metadata.
/// - `blood_pressure` `systolic`/`diastolic`: one sample of each HealthKit type.
/// - `sleep_analysis`: unaggregated (`startDate`, `endDate`, `value`) becomes one sleep stage;
///   aggregated (`sleepStart`/`sleepEnd`, `inBedStart`/`inBedEnd`, totals in hours, current and
///   pre-6.6.2 shapes) becomes an `asleepUnspecified` interval and an `inBed` interval,
///   with the totals in metadata; a sleep point's other fields go to that metadata as sent.
/// - Other fields of a data point (`mealTime`, `reason`, `value`) go to metadata.
/// - Workouts v1 and v2: activity type from `name` (`other` with the name in metadata when it is
///   none of HealthKit's), `duration` (or end − start), energy, distance and heart rate; a v2
///   `id` is the sample's id.
enum HealthAutoExportParser {
    struct Payload {
        var items: [HealthItem] = []
        var skipped = 0
        /// Route points of the workouts read that carried a `courseAccuracy` or `speedAccuracy`,
        /// which a route point has no field for (see `route`): left out, and logged.
        var routePointsWithFieldsLeftOut = 0
    }

    enum Failure: Error, Equatable {
        case badJSON
        case notObject
        /// Not the shape of a Health Auto Export body (what is wrong, for the reply).
        case notHealthAutoExport(String)
    }

    static let defaultSource = Fingerprint.unnamedSource

    static func parse(_ body: [UInt8], userId: String?) throws(Failure) -> Payload {
        // A tree of `JSONValue`s, each metric's points and each workout converted to Foundation's
        // types one at a time: `JSONSerialization`'s whole tree took about 60 times the body.
        guard let root = JSONValues.tree(body) else { throw .badJSON }
        let (data, _) = try sections(root)
        var payload = Payload()
        // Sections of other data types (`stateOfMind`, `medications`, `ecg`, …): each entry kept
        // whole as a record (`HealthAutoExportRecord`).
        for (name, entries) in recordSections(of: data) {
            for entry in entries {
                guard let record = HealthAutoExportRecord.read(entry, section: name, userId: userId) else {
                    payload.skipped += 1
                    continue
                }
                payload.items.append(.sample(record))
            }
        }
        let metrics = JSONValues.entries(data["metrics"]) ?? []
        let atDates = pointsAtDatesByType(metrics)
        for metric in metrics {
            guard case .object = metric else { payload.skipped += 1; continue }
            readMetric(metric, userId: userId, atDates: atDates, into: &payload)
        }
        for workout in JSONValues.entries(data["workouts"]) ?? [] {
            guard let workout = JSONValues.foundationValue(workout) as? [String: Any],
                  let sample = readWorkout(workout, userId: userId) else {
                payload.skipped += 1
                continue
            }
            payload.items.append(.sample(sample))
            payload.routePointsWithFieldsLeftOut += routePointsWithFieldsLeftOut(workout["route"])
        }
        // A number out of range once converted to its canonical unit: stored, it would be none.
        let before = payload.items.count
        payload.items.removeAll { if case .sample(let sample) = $0 { sample.fieldOutOfRange != nil } else { false } }
        payload.skipped += before - payload.items.count
        return payload
    }

    /// The object holding `metrics` and `workouts` (`data`, or the body itself) and the prefix
    /// its keys are named with (`data.`), once the body is known to be of Health Auto Export's shape.
    static func sections(_ root: JSONValue) throws(Failure) -> (data: JSONValue, prefix: String) {
        guard case .object = root else { throw .notObject }
        let wrapped = root["data"]
        if wrapped == nil && root["metrics"] == nil && root["workouts"] == nil {
            throw .notHealthAutoExport("no data.metrics or data.workouts: not a Health Auto Export body")
        }
        if let wrapped, wrapped.objectValue == nil { throw .notHealthAutoExport("data must be an object") }
        for (object, prefix) in [(root, ""), (wrapped, "data.")] {
            for key in ["metrics", "workouts"] {
                if let value = object?[key], value != .null, JSONValues.entries(value) == nil {
                    throw .notHealthAutoExport("\(prefix)\(key) must be an array")
                }
            }
        }
        guard case .object(let pairs)? = wrapped else { return (root, "") }
        return (.object(pairs + besideData(root, inside: pairs)), "data.")
    }

    /// `metrics` and `workouts` arrays beside `data` (`{"data":{"metrics":[…]},"workouts":[…]}`, as
    /// some receivers of Health Auto Export's bodies write them out), each joined to the entries of
    /// `data`'s own, so that the ones `data` holds come first and none is left out without a word.
    private static func besideData(_ root: JSONValue, inside: [(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)] {
        var joined: [(key: String, value: JSONValue)] = []
        for key in ["metrics", "workouts"] {
            guard let beside = JSONValues.entries(root[key]), !beside.isEmpty else { continue }
            let own = JSONValues.entries(JSONValue.object(inside)[key]) ?? []
            joined.append((key: key, value: .array(own + beside)))
        }
        return joined
    }

    /// The sections of `data` other than `metrics` and `workouts` that hold entries (Health Auto
    /// Export's `stateOfMind`, `medications`, `symptoms`, `cycleTracking`, `ecg`,
    /// `heartRateNotifications`, or one a later version adds), with their entries, by name. A
    /// repeated key counts once, with its last value.
    static func recordSections(of data: JSONValue) -> [(name: String, entries: [JSONValue])] {
        guard case .object(let pairs) = data else { return [] }
        var sections: [String: [JSONValue]] = [:]
        for pair in pairs where pair.key != "metrics" && pair.key != "workouts" {
            sections[pair.key] = JSONValues.entries(pair.value) ?? []
        }
        return sections.filter { !$0.value.isEmpty }.map { (name: $0.key, entries: $0.value) }.sorted { $0.name < $1.name }
    }

    // MARK: - Metrics

    private static let pointKeys: Set<String> = ["date", "startDate", "endDate", "qty", "source", "units",
                                                 "Min", "Avg", "Max", "systolic", "diastolic"]

    /// Category metrics whose `qty` is the event's duration (HealthKit's sample is its interval).
    private static let durationCategories: Set<String> = ["mindful_minutes", "handwashing", "toothbrushing"]

    /// The type a metric's `name` stands for: the registry's identifier (an alias, `vo2_max`, is the
    /// type of `vo2max`), else the name.
    private static func metricType(_ name: String) -> String {
        TypeRegistry.type(haeName: name)?.identifier ?? name
    }

    /// `pointsAtDates` of each type's points across every metric object of the body that names it
    /// (`metricType`): two objects of one type (an alias pair, `vo2max` and `vo2_max`, or one name
    /// twice) with points of one source at one date are readings side by side, each with an id of
    /// its own, where one replaced the other at every push (each re-send two changes, an ndjson
    /// folder two lines more).
    static func pointsAtDatesByType(_ metrics: [JSONValue]) -> [String: PointsAtDates] {
        var pointsOfType: [String: [[JSONValue]]] = [:]
        for metric in metrics {
            guard case .object = metric, let name = metric["name"]?.stringValue, !name.isEmpty,
                  let points = JSONValues.entries(metric["data"]) else { continue }
            pointsOfType[metricType(name), default: []].append(points)
        }
        return pointsOfType.mapValues(pointsAtDates)
    }

    /// Reads one metric (an object) into `payload`, its points converted one at a time; `atDates`:
    /// `pointsAtDatesByType` of the body it came in.
    static func readMetric(_ metricValue: JSONValue, userId: String?,
                           atDates: [String: PointsAtDates],
                           into payload: inout Payload) {
        let metric = JSONValues.foundationObject(metricValue, skipping: "data") ?? [:]
        let data = metricValue["data"]
        // A metric's name is its type: without one (or not a string), its points are not stored
        // under a made-up type.
        guard let name = metric["name"] as? String, !name.isEmpty else {
            payload.skipped += max(1, JSONValues.entries(data)?.count ?? 0)
            return
        }
        let units = metric["units"] as? String
        let type = TypeRegistry.type(haeName: name)
        let identifier = type?.identifier ?? name
        if let data, data != .null, JSONValues.entries(data) == nil {
            payload.skipped += 1
            return
        }
        let points = JSONValues.entries(data) ?? []
        let (datesOfSeveralSources, repeatedAtDate) = atDates[identifier] ?? pointsAtDates([points])
        for point in points {
            guard let point = JSONValues.foundationValue(point) as? [String: Any] else { payload.skipped += 1; continue }
            let source = point["source"] as? String ?? defaultSource
            // A period's points from several sources side by side ("Summarize data" off):
            // one sample each, not one total (see `periodId`).
            let periodSource = (point["date"] as? String).flatMap(HealthDateParser.parse)
                .flatMap { datesOfSeveralSources.contains($0.epochMilliseconds) ? periodSourceName(point) : nil }
            if name == "sleep_analysis" {
                let before = payload.items.count
                readSleep(point, source: source, periodSource: periodSource, userId: userId, into: &payload)
                if payload.items.count == before { payload.skipped += 1 }
                continue
            }
            guard let (start, end) = interval(point), valueProblem(point, metric: name) == nil else {
                payload.skipped += 1
                continue
            }
            let repeated = point["startDate"] == nil && repeatedAtDate.contains(Self.dateAndSource(start, point))
                ? readingPart(point) : ""
            func make(_ identifier: String, _ value: Double?, unit: String?) -> Sample {
                var sample = Sample(id: "", type: identifier, kind: TypeRegistry.resolve(identifier)?.kind ?? .quantity,
                                    start: start, end: end, value: value, unit: unit, sourceName: source, userId: userId)
                // A point with a `date` alone stands for a period (see `periodId`).
                if point["startDate"] == nil {
                    sample.id = periodId(sample, userId: userId, part: repeated, source: periodSource)
                }
                return sample
            }
            if name == "blood_pressure" {
                let unit = units ?? "mmHg"
                for (key, typeName) in [("systolic", "HKQuantityTypeIdentifierBloodPressureSystolic"),
                                        ("diastolic", "HKQuantityTypeIdentifierBloodPressureDiastolic")] {
                    if let value = JSONValues.number(point[key]) { payload.items.append(.sample(normalized(make(typeName, value, unit: unit)))) }
                }
                continue
            }
            var sample: Sample
            if let average = JSONValues.number(point["Avg"]) {
                sample = make(identifier, average, unit: units)
                // Kept as sent when not numbers: they are not the value.
                for key in ["Min", "Max"] {
                    if let value = point[key], let converted = JSONValues.metadataValue(value) {
                        sample.metadata.append(MetadataEntry(key, converted))
                    }
                }
            } else if let quantity = JSONValues.number(point["qty"]) {
                sample = make(identifier, quantity, unit: units)
                // A category whose amount is how long it lasted (mindful minutes; a handwashing's
                // seconds), at a date alone: the sample lasts that long from it, as HealthKit's does
                // (a duration, not an instant, is what a reader sums); the amount stays too.
                if durationCategories.contains(name), sample.end == sample.start, let units,
                   let seconds = UnitConverter.convert(quantity, from: units, to: "s"), seconds > 0, seconds <= 366 * 86_400,
                   HealthDateParser.instants.contains(sample.start.epochMilliseconds + Int64((seconds * 1000).rounded())) {
                    sample.end = Timestamp(epochMilliseconds: sample.start.epochMilliseconds + Int64((seconds * 1000).rounded()),
                                           utcOffsetSeconds: sample.end.utcOffsetSeconds)
                }
            } else if point["value"] is String {
                sample = make(identifier, nil, unit: nil)
            } else {
                // sexual_activity and other count-only shapes: keep every field as metadata.
                sample = make(identifier, nil, unit: units)
            }
            if case .category = sample.kind, let text = point["value"] as? String {
                sample.categoryValue = CategoryValueNames.healthKitName(text, type: identifier)
            }
            for (key, value) in point.sorted(by: { $0.key < $1.key }) where !pointKeys.contains(key) {
                if case .category = sample.kind, key == "value" { continue }
                if let converted = JSONValues.metadataValue(value) { sample.metadata.append(MetadataEntry(key, converted)) }
            }
            payload.items.append(.sample(normalized(sample)))
        }
    }

    /// Why a data point's value cannot be used, naming the field (nil: it can): its `qty` or `Avg`
    /// (a blood pressure's `systolic` or `diastolic`) is there but not a number (`"12"`, `null`,
    /// `true`), or is out of a double's range (`1e400`), or a quantity metric's point has neither
    /// (`step_count` without `qty`: stored, it would replace the reading with none). Such a point is
    /// skipped, not stored without its value; a point of a category or unknown metric with neither
    /// field (a count-only shape: `sexual_activity`) is kept.
    static func valueProblem(_ point: [String: Any], metric name: String) -> String? {
        let keys = name == "blood_pressure" ? ["systolic", "diastolic"] : ["Avg", "qty"]
        for key in keys {
            guard let value = point[key] else { continue }
            guard let number = JSONValues.number(value) else {
                return "\(key) \(describe(value)) is not a number"
            }
            if !number.isFinite { return "\(key) is out of a double's range" }
        }
        guard keys.allSatisfy({ point[$0] == nil }) else { return nil }
        if name == "blood_pressure" { return "no systolic or diastolic" }
        if TypeRegistry.type(haeName: name)?.kind == .quantity, !(point["value"] is String) {
            return "no qty (or Avg): a point of a quantity metric needs its value"
        }
        return nil
    }

    /// A JSON value for a log line: a string quoted and clipped, else its kind.
    private static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: SkippedElement.quoted(text)
        case is NSNull: "null"
        case let number as NSNumber where JSONValues.isBool(number): number.boolValue ? "true" : "false"
        case is [Any]: "(an array)"
        case is [String: Any]: "(an object)"
        default: "(\(value))"
        }
    }

    /// The id of a data point that stands for a period (`date` only: a day's, an hour's total):
    /// from the user, type and start, not the value. Health Auto Export sends the period again
    /// at every sync while it is under way (today's steps so far): each sync is a change of one
    /// sample, not a new sample beside the last (the totals would add up). Nor the source: an
    /// aggregated point names every source that added to it, joined with `|`, and that list grows
    /// when the watch's data arrives later in the day (`iPhone` → `iPhone|Apple Watch`), while
    /// the point stays the one total of that period. The UUIDv5 of those fields with
    /// version 8 (custom), so the journal takes it for a producer's own id and still recognises
    /// the same reading from an export (its fingerprint) as one sample.
    ///
    /// `source`: set when one body holds points of this metric at this date from several
    /// sources (`pointsAtDates`): then they are not one period's total but samples
    /// side by side ("Summarize data" off: the iPhone's and the watch's reading of the same
    /// minute), and each keeps its own id. Points a body holds alone at their date keep the
    /// plain period id: a body cannot tell a lone sample from a one-source total.
    ///
    /// `part`: a sleep night's part (asleep, in bed), or the other fields of one of several points
    /// of one source at one date in one body (two blood pressures taken within a minute:
    /// `readingPart`): readings of their own, with the same ids in any order; one of them sent alone
    /// later has the plain id, and the journal takes it for the reading another id holds.
    static func periodId(_ sample: Sample, userId: String?, part: String = "", source: String? = nil) -> String {
        var fields = ["hae-period", userId ?? "", sample.type, String(sample.start.epochMilliseconds), part]
        if let source { fields.append(source) }
        let name = fields.joined(separator: "\u{1F}")
        var id = Array(UUIDv5.string(name: name).utf8)
        id[14] = UInt8(ascii: "8")
        return String(decoding: id, as: UTF8.self)
    }

    private static func dateAndSource(_ date: Timestamp, _ point: [String: Any]) -> String {
        dateAndSource(date, source: periodSourceName(point))
    }

    private static func dateAndSource(_ date: Timestamp, source: String) -> String {
        "\(date.epochMilliseconds)\u{1F}\(source)"
    }

    /// The `part` of a period id (`periodId`) for one of several readings of one source at one date:
    /// its fields but the date and source, as compact JSON with sorted keys
    /// (`#{"diastolic":85,"systolic":130}`; a category's `value`, a glucose reading's `mealTime`),
    /// so that each keeps its id whatever order or company it comes in. Two points alike in every
    /// field are one reading.
    private static func readingPart(_ point: [String: Any]) -> String {
        let fields = point.filter { !["date", "source", "sleepSource"].contains($0.key) }
        var writer = JSONWriter(capacity: 64)
        writer.value(JSONValues.jsonValue(fields), sortingKeys: true)
        return "#" + writer.text
    }

    /// What one type's points hold at each `date` (`pointsAtDates`): the dates (as instants, in
    /// milliseconds) with points from more than one `source` (`severalSources`: samples side by
    /// side, see `periodId`), and the `dateAndSource` keys with more than one point of one source
    /// and no `startDate` (`repeated`: readings of their own, such as two blood pressures taken
    /// within a minute, not one period's total sent twice: `readingPart`).
    typealias PointsAtDates = (severalSources: Set<Int64>, repeated: Set<String>)

    /// `PointsAtDates` of one type's points (`groups`: those of each metric object naming it), in
    /// one pass. A point alike in every field to one of an earlier group is that point sent twice (a
    /// metric object repeated, or under both names of an alias pair), not a reading of its own: it
    /// counts once, so that its total keeps the plain period id one group gives it and moves on as a
    /// change at the next sync.
    static func pointsAtDates(_ groups: [[JSONValue]]) -> PointsAtDates {
        var sourceAt: [Int64: String] = [:]
        var several: Set<Int64> = []
        var seen: Set<String> = []
        var repeated: Set<String> = []
        func note(_ point: JSONValue) {
            guard case .object = point, let text = point["date"]?.stringValue, let date = HealthDateParser.parse(text) else { return }
            let source = point["source"]?.stringValue ?? point["sleepSource"]?.stringValue ?? defaultSource
            if let known = sourceAt[date.epochMilliseconds] {
                if known != source { several.insert(date.epochMilliseconds) }
            } else {
                sourceAt[date.epochMilliseconds] = source
            }
            if point["startDate"] == nil {
                let key = dateAndSource(date, source: source)
                if !seen.insert(key).inserted { repeated.insert(key) }
            }
        }
        // The points of the earlier groups, as compact JSON with sorted keys (one group: none needed).
        var earlier: Set<String> = []
        // Read from the tree (each point is turned into Foundation's types once, later).
        for (index, group) in groups.enumerated() {
            var current: Set<String> = []
            for point in group {
                if groups.count > 1 {
                    var writer = JSONWriter(capacity: 64)
                    writer.value(point, sortingKeys: true)
                    guard !earlier.contains(writer.text) else { continue }
                    if index < groups.count - 1 { current.insert(writer.text) }
                }
                note(point)
            }
            earlier.formUnion(current)
        }
        return (several, repeated)
    }

    /// The source a period's point names: `source`, else (sleep before HAE 6.6.2) `sleepSource`.
    private static func periodSourceName(_ point: [String: Any]) -> String {
        point["source"] as? String ?? point["sleepSource"] as? String ?? defaultSource
    }

    /// A data point's interval: `startDate`…`endDate`, else `date` as a point in time; nil
    /// without a readable date or with `endDate` before `startDate`.
    static func interval(_ point: [String: Any]) -> (Timestamp, Timestamp)? {
        if let startText = point["startDate"] as? String, let start = HealthDateParser.parse(startText) {
            let end = (point["endDate"] as? String).flatMap(HealthDateParser.parse) ?? start
            return end >= start ? (start, end) : nil
        }
        guard let text = point["date"] as? String, let date = HealthDateParser.parse(text) else { return nil }
        return (date, date)
    }

    private static let sleepIdentifier = "HKCategoryTypeIdentifierSleepAnalysis"
    private static let sleepTotals = ["totalSleep", "asleep", "core", "deep", "rem", "awake", "inBed"]

    static func readSleep(_ point: [String: Any], source: String, periodSource: String? = nil, userId: String?,
                          into payload: inout Payload) {
        func sleep(_ start: Timestamp, _ end: Timestamp, _ value: String, metadata: [MetadataEntry], source: String,
                   night: Timestamp? = nil) -> HealthItem {
            var sample = Sample(id: "", type: sleepIdentifier, kind: .category, start: start, end: end,
                                categoryValue: CategoryValueNames.healthKitName(value, type: sleepIdentifier),
                                sourceName: source, metadata: metadata, userId: userId)
            // A night's aggregate grows while the night goes on (its end, its totals): one sample
            // per night and part, keyed by the night's date.
            if let night {
                var key = sample
                key.start = night
                sample.id = periodId(key, userId: userId, part: value, source: periodSource)
            }
            SampleNormalizer.normalize(&sample, convention: .canonical)
            return .sample(sample)
        }
        func date(_ key: String) -> Timestamp? { (point[key] as? String).flatMap(HealthDateParser.parse) }
        // Unaggregated: one stage.
        if let value = point["value"] as? String, let start = date("startDate") {
            let end = date("endDate") ?? start
            guard end >= start else { return }
            var metadata: [MetadataEntry] = []
            if let hours = JSONValues.number(point["qty"]) { metadata.append(MetadataEntry("hours", .number(hours))) }
            // Its other fields (the night's totals newer versions add to each stage) as sent.
            metadata += otherFields(of: point, besides: stageKeys)
            payload.items.append(sleep(start, end, value, metadata: metadata, source: source))
            return
        }
        // Aggregated: the night's asleep and in-bed intervals, totals in hours as metadata.
        var totals: [MetadataEntry] = []
        for key in sleepTotals {
            if let hours = JSONValues.number(point[key]) { totals.append(MetadataEntry(key, .number(hours))) }
        }
        if let start = date("sleepStart"), let end = date("sleepEnd"), end >= start {
            let sleepSource = point["sleepSource"] as? String ?? source
            // Fields of the night a later version adds go with the asleep interval, as sent.
            payload.items.append(sleep(start, end, "Asleep", metadata: totals + otherFields(of: point, besides: nightKeys),
                                       source: sleepSource, night: date("date") ?? start))
        }
        if let start = date("inBedStart"), let end = date("inBedEnd"), end > start {
            let inBedSource = point["inBedSource"] as? String ?? source
            payload.items.append(sleep(start, end, "In Bed", metadata: [], source: inBedSource, night: date("date") ?? start))
        }
    }

    /// The fields of an unaggregated sleep stage read into its sample.
    private static let stageKeys: Set<String> = ["startDate", "endDate", "qty", "value", "source"]
    /// The fields of an aggregated night read into its samples (`sleepTotals` among them).
    private static let nightKeys: Set<String> = Set(sleepTotals).union(["date", "sleepStart", "sleepEnd", "inBedStart",
                                                                        "inBedEnd", "source", "sleepSource", "inBedSource"])

    /// `point`'s fields but `keys`, as metadata entries sorted by key (an object or array as its
    /// compact JSON; null as no value): what a sleep point carries beyond what its samples read.
    private static func otherFields(of point: [String: Any], besides keys: Set<String>) -> [MetadataEntry] {
        point.sorted { $0.key < $1.key }.compactMap { key, value in
            keys.contains(key) ? nil : JSONValues.metadataValue(value).map { MetadataEntry(key, $0) }
        }
    }

    // MARK: - Workouts

    /// A workout as a sample; nil without a readable `start` or with `end` before it.
    static func readWorkout(_ object: [String: Any], userId: String?) -> Sample? {
        guard let startText = object["start"] as? String, let start = HealthDateParser.parse(startText) else { return nil }
        let end = (object["end"] as? String).flatMap(HealthDateParser.parse) ?? start
        guard end >= start else { return nil }
        let name = object["name"] as? String ?? "Other"
        let fitnessName = fitnessAppNames[name]
        // A name that is no activity type HealthKit has (the app's language is not English: `Gehen`,
        // `户外 步行`) is `other`, the name kept in metadata, not a made-up type.
        let activity = WorkoutActivityName.knownHealthKitName(fitnessName?.activity ?? name)
        var workout = Workout(activityType: activity ?? WorkoutActivityName.healthKitName("other"))
        workout.durationSeconds = JSONValues.number(object["duration"])
            ?? Double(end.epochMilliseconds - start.epochMilliseconds) / 1000
        // A total in units that do not convert to the column's is kept in metadata as sent (below).
        var unconverted: Set<String> = []
        func total(_ key: String, in unit: String, from holder: [String: Any] = object, keptAs kept: String? = nil) -> Double? {
            let value = quantity(holder[key], in: unit)
            if value == nil, let sent = holder[key] as? [String: Any], JSONValues.number(sent["qty"]) != nil {
                unconverted.insert(kept ?? key)
            }
            return value
        }
        workout.totalEnergyBurnedKilocalories = object["activeEnergyBurned"] != nil
            ? total("activeEnergyBurned", in: "kcal") : total("activeEnergy", in: "kcal")
        workout.totalDistanceMeters = total("distance", in: "m")
        if let heartRate = object["heartRate"] as? [String: Any] {
            workout.minimumHeartRate = total("min", in: "count/min", from: heartRate, keptAs: "heartRate")
            workout.averageHeartRate = total("avg", in: "count/min", from: heartRate, keptAs: "heartRate")
            workout.maximumHeartRate = total("max", in: "count/min", from: heartRate, keptAs: "heartRate")
        }
        workout.averageHeartRate = workout.averageHeartRate ?? total("avgHeartRate", in: "count/min")
        workout.maximumHeartRate = workout.maximumHeartRate ?? total("maxHeartRate", in: "count/min")
        // A v1 workout gives its heart rate only as a series: its lowest, mean and highest.
        if workout.minimumHeartRate == nil && workout.averageHeartRate == nil && workout.maximumHeartRate == nil,
           let series = heartRateSummary(object["heartRateData"]) {
            (workout.minimumHeartRate, workout.averageHeartRate, workout.maximumHeartRate) = series
        }
        var metadata: [MetadataEntry] = []
        if activity == nil, !name.isEmpty { metadata.append(MetadataEntry("name", .string(name))) }
        if let location = object["location"] as? String { metadata.append(MetadataEntry("location", .string(location))) }
        if let indoor = object["isIndoor"] as? NSNumber, JSONValues.isBool(indoor) {
            metadata.append(MetadataEntry("HKIndoorWorkout", .bool(indoor.boolValue)))
        } else if let indoor = fitnessName?.indoor {
            metadata.append(MetadataEntry("HKIndoorWorkout", .bool(indoor)))
        }
        // Fields of other workout kinds (`elevationUp`, `temperature`, `humidity`, `stepCadence`,
        // `flightsClimbed`, `lapLength`, `intensity` with its units, …), totals in units that do not convert, and the series
        // but the route (`heartRateData`, `heartRateRecovery`, `stepCount`, `activeEnergy`, …):
        // kept in metadata as sent (an object or array as its compact JSON), not dropped. A v2
        // workout's own `metadata` object gives its entries.
        let ownMetadata = object["metadata"] as? [String: Any]
        // A key of a total holding a series (v2's per-workout `activeEnergy[]`, beside its
        // `activeEnergyBurned` total) is no total the workout read: kept as sent too.
        for (key, value) in object.sorted(by: { $0.key < $1.key })
        where (!workoutKeys.contains(key) || unconverted.contains(key) || (value is [Any] && key != "route"))
            && !(key == "metadata" && ownMetadata != nil) {
            if let converted = JSONValues.metadataValue(value) { metadata.append(MetadataEntry(key, converted)) }
        }
        // Its entries after the workout's own fields, none of whose keys they repeat.
        for (key, value) in (ownMetadata ?? [:]).sorted(by: { $0.key < $1.key }) where !metadata.contains(where: { $0.key == key }) {
            if let converted = JSONValues.metadataValue(value) { metadata.append(MetadataEntry(key, converted)) }
        }
        let sourceName = object["source"] as? String ?? defaultSource
        if let route = route(object["route"], sourceName: sourceName) { workout.routes = [route] }
        var sample = Sample(id: object["id"] as? String ?? "", type: "HKWorkoutTypeIdentifier", kind: .workout,
                            start: start, end: end, sourceName: sourceName,
                            metadata: metadata, userId: userId, detail: .workout(workout))
        SampleNormalizer.normalize(&sample, convention: .canonical)
        return sample
    }

    /// The lowest, mean and highest heart rate of a workout's `heartRateData` (v1 points `qty`,
    /// v2 points `Min`/`Avg`/`Max`), in its points' `units` (count/min when none); nil without a
    /// point that has a number.
    static func heartRateSummary(_ value: Any?) -> (minimum: Double, average: Double, maximum: Double)? {
        guard let points = value as? [Any] else { return nil }
        var lowest = Double.infinity, highest = -Double.infinity, sum = 0.0, count = 0
        for case let point as [String: Any] in points {
            let unit = point["units"] as? String ?? "count/min"
            func read(_ key: String) -> Double? {
                guard let number = JSONValues.number(point[key]) else { return nil }
                return unit == "count/min" ? number : UnitConverter.convert(number, from: unit, to: "count/min")
            }
            guard let average = read("Avg") ?? read("qty") else { continue }
            lowest = min(lowest, read("Min") ?? average)
            highest = max(highest, read("Max") ?? average)
            sum += average
            count += 1
        }
        guard count > 0 else { return nil }
        return (lowest, sum / Double(count), highest)
    }

    /// The workout keys read into the workout itself (the rest goes to metadata).
    private static let workoutKeys: Set<String> = [
        "id", "name", "start", "end", "duration", "activeEnergyBurned", "activeEnergy", "distance", "heartRate",
        "avgHeartRate", "maxHeartRate", "location", "isIndoor", "source", "route",
    ]

    /// A workout's `route` as its GPS points: v2 `latitude`/`longitude`, v1 `lat`/`lon`, each with
    /// a `timestamp`; altitude, `horizontalAccuracy` and `verticalAccuracy` in metres, speed in
    /// m/s, course in degrees (a `{qty, units}` object is converted). A point's other fields
    /// (`courseAccuracy`, `speedAccuracy`) are left out: `RoutePoint` has none for them (counted
    /// by `routePointsWithFieldsLeftOut`). Points without a position or a readable time are left
    /// out; nil when none is left.
    static func route(_ value: Any?, sourceName: String) -> WorkoutRoute? {
        guard let points = value as? [Any] else { return nil }
        var route = WorkoutRoute(sourceName: sourceName)
        for case let point as [String: Any] in points {
            guard let latitude = JSONValues.number(point["latitude"] ?? point["lat"]), latitude.isFinite,
                  let longitude = JSONValues.number(point["longitude"] ?? point["lon"]), longitude.isFinite,
                  let text = point["timestamp"] as? String, let time = HealthDateParser.parse(text) else { continue }
            let made = RoutePoint(time: time, latitude: latitude, longitude: longitude,
                                  altitude: quantity(point["altitude"], in: "m"),
                                  horizontalAccuracy: quantity(point["horizontalAccuracy"], in: "m"),
                                  verticalAccuracy: quantity(point["verticalAccuracy"], in: "m"),
                                  course: quantity(point["course"], in: nil),
                                  speed: quantity(point["speed"], in: "m/s"))
            // At no place (a latitude past 90°) it has no position, as one without.
            guard abs(latitude) <= 90, abs(longitude) <= 180 else { continue }
            route.points.append(made)
        }
        guard let first = route.points.first, let last = route.points.last else { return nil }
        route.start = first.time
        route.end = last.time
        return route
    }

    /// The route fields a route point has no place for, which `route` leaves out.
    static let routeFieldsLeftOut = ["courseAccuracy", "speedAccuracy"]

    /// How many points of a workout's `route` carry a field of `routeFieldsLeftOut` (not null).
    static func routePointsWithFieldsLeftOut(_ value: Any?) -> Int {
        guard let points = value as? [Any] else { return 0 }
        return points.count(where: { point in
            guard let point = point as? [String: Any] else { return false }
            return routeFieldsLeftOut.contains { key in point[key].map { !($0 is NSNull) } ?? false }
        })
    }

    /// Workout names as Apple's Fitness app shows them, which Health Auto Export may send instead
    /// of the activity type's name: the activity type, and whether it was indoors (HealthKit's
    /// `HKIndoorWorkout`), so that `Outdoor Run` is a run, not `HKWorkoutActivityTypeOutdoorRun`.
    static let fitnessAppNames: [String: (activity: String, indoor: Bool?)] = [
        "Outdoor Run": ("Running", false), "Indoor Run": ("Running", true),
        "Outdoor Walk": ("Walking", false), "Indoor Walk": ("Walking", true),
        "Outdoor Cycle": ("Cycling", false), "Indoor Cycle": ("Cycling", true),
        "Pool Swim": ("Swimming", nil), "Open Water Swim": ("Swimming", nil),
        "Outdoor Wheelchair Run Pace": ("Wheelchair Run Pace", false),
        "Indoor Wheelchair Run Pace": ("Wheelchair Run Pace", true),
        "Outdoor Wheelchair Walk Pace": ("Wheelchair Walk Pace", false),
        "Indoor Wheelchair Walk Pace": ("Wheelchair Walk Pace", true),
        "Stair Stepper": ("Stair Climbing", nil), "HIIT": ("High Intensity Interval Training", nil),
        "Rower": ("Rowing", nil), "Skating": ("Skating Sports", nil), "Surfing": ("Surfing Sports", nil),
    ]

    /// A `{qty, units}` object (or a bare number) in `unit` (nil: as sent); nil when it has no
    /// number, or units that do not convert to `unit` (`furlongs` for metres is no distance).
    static func quantity(_ value: Any?, in unit: String?) -> Double? {
        if let number = JSONValues.number(value) { return number }
        guard let object = value as? [String: Any], let amount = JSONValues.number(object["qty"]) else { return nil }
        guard let unit, let sent = object["units"] as? String, sent != unit else { return amount }
        return UnitConverter.convert(amount, from: sent, to: unit)
    }

    private static func normalized(_ sample: Sample) -> Sample {
        var copy = sample
        SampleNormalizer.normalize(&copy, convention: .canonical)
        return copy
    }
}
