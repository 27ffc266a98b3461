import Foundation
import HealthRouterCore

/// Turns a Pulso protocol v1.2 `POST /ingest` body (a JSON array of sample objects and
/// `{"deleted":[…]}` tombstones, pulso-protocol.md §1.3–1.4) into canonical items.
///
/// - Every element counts in `received`, as Pulso's reference server counts it; elements
///   that are not objects, and samples without a string `uuid`, with a `type` that is not a
///   string, with dates that cannot be read or an `end` before the `start`, are skipped
///   (counted in `skipped`, not in the reply's `new`; the first `listedSkips` of them, with
///   the field at fault and why, in `skips`: the reply lists them, the log names the first
///   `reportedSkips`). A sample without `type` is of type `unknown`, as the reference server files it.
/// - Within one body a `uuid` stands for one sample, the first with it, as the reference server
///   keeps it: later elements with the same `uuid` are counted in `received` and `duplicates`
///   and dropped, so a re-sent body is `new: 0` however its duplicates differ.
/// - An element with `deleted` is a tombstone even if it has a `uuid`; a non-list `deleted`
///   deletes nothing; non-string entries are skipped.
/// - Samples: `type` short keys become HealthKit identifiers, category names HealthKit's,
///   workout activity names HealthKit's; `metadata.timeZone` becomes the sample's zone;
///   healthrouter's additive fields (`identifier`, `kind`, `categoryValue`, `numericValue`,
///   `activityType`, `timeZone`, `sourceVersion`, `device`, `creationDate`) are read back.
///   Every item carries `userId` (the pushing token's user), whatever the body says.
enum PulsoBatchParser {
    struct Batch {
        var items: [HealthItem] = []
        /// The position in the body (from 0) of each of `items`, for a reply naming the elements
        /// the journal left out.
        var itemIndices: [Int] = []
        var received = 0
        var skipped = 0
        /// The first `PulsoBatchParser.listedSkips` elements skipped, for the reply and the log.
        var skips: [SkippedElement] = []
        /// Samples kept without a healthrouter field of the wrong JSON type or unreadable parts.
        var leftOut = 0
        /// The first `PulsoBatchParser.reportedSkips` of them, for the log: `#3 uuid=A device`.
        var leftOutExamples: [String] = []
        /// Samples dropped because an earlier element of the body had their `uuid`.
        var duplicates = 0
        /// The ids of the samples taken so far, a UUID in upper case (the journal's form, in which
        /// `7a00…` and `7A00…` are one sample).
        private var ids = Set<String>()
        /// Ids (in the journal's case) whose ends `ends` leaves out: samples the journal refused
        /// (another user's id, an id sent before under another type), found by a first parse.
        var endsLeaveOut: Set<String> = []

        /// Adds `sample`, the body's element at `index`, unless an earlier sample of the body had
        /// its id; whether it was added.
        mutating func addFirst(_ sample: Sample, index: Int) -> Bool {
            guard ids.insert(SampleIdKey.canonicalCase(sample.id)).inserted else {
                duplicates += 1
                return false
            }
            items.append(.sample(sample))
            itemIndices.append(index)
            return true
        }
        /// For `/latest`: per wire `type` (sanitized), the newest `end` that has a UTC offset
        /// (the first of equal ones) and is not more than a day from now, in the order the types
        /// first appear in the body.
        var ends: [(key: String, end: String, instant: Timestamp)] = []
        /// Ends left out of `ends` for lying more than a day ahead of the parse: a sample from a
        /// watch whose clock was wrong (`2199-01-01`) would be its type's newest for good, and an
        /// app resuming from `/latest` would ask its phone for nothing newer. (It is stored.)
        var endsAhead = 0
        private let latestEndAllowed = LatestIndex.latestAllowedEnd()
        /// The `ends` index of each key (a body of 300,000 types searched `ends` for each sample).
        private var endIndex: [String: Int] = [:]
        /// The `ends` index of the type seen last (bodies come in runs of one type).
        private var lastEndIndex = -1

        /// Counts a skipped element, and keeps it when it is one of the first `listedSkips`.
        mutating func skip(_ element: SkippedElement) {
            skipped += 1
            if skips.count < PulsoBatchParser.listedSkips { skips.append(element) }
        }

        /// Notes a sample's sanitized type `key` and its `end` as written and as read.
        mutating func noteEnd(key: String, end: String, instant: Timestamp) {
            guard instant.utcOffsetSeconds != nil else { return }
            guard instant.epochMilliseconds <= latestEndAllowed else {
                endsAhead += 1
                return
            }
            let index: Int
            if lastEndIndex >= 0 && ends[lastEndIndex].key == key {
                index = lastEndIndex
            } else if let found = endIndex[key] {
                index = found
            } else {
                ends.append((key, end, instant))
                lastEndIndex = ends.count - 1
                endIndex[key] = lastEndIndex
                return
            }
            lastEndIndex = index
            if instant.epochMilliseconds > ends[index].instant.epochMilliseconds {
                ends[index].end = end
                ends[index].instant = instant
            }
        }
    }

    enum Failure: Error, Equatable {
        case badJSON
        case notArray
    }

    /// How many skipped elements of one body the log names, with their reasons.
    static let reportedSkips = 5

    /// How many skipped elements of one body the reply lists (`skipped`), with their reasons: more
    /// than a body of another healthrouter's `http` sink holds (5,000), so that it learns of each.
    static let listedSkips = 10_000

    private static let notAnObject = SkippedElement.Problem(field: "element", reason: "not a JSON object")

    /// With `endsLeavingOut`, the ends of the samples with those ids are not in the batch's `ends`
    /// (a second parse, once the journal said which it refused).
    static func parse(_ body: [UInt8], userId: String?, keepsUserIds: Bool = false,
                      endsLeavingOut: Set<String> = []) throws(Failure) -> Batch {
        if let batch = body.withUnsafeBufferPointer({
            scan($0, userId: userId, keepsUserIds: keepsUserIds, endsLeavingOut: endsLeavingOut)
        }) { return batch }
        // Anything the byte-level reader does not take (errors included) goes through
        // JSONSerialization, which tells bad JSON from JSON that is not an array.
        return try parseWithFoundation(body, userId: userId, keepsUserIds: keepsUserIds, endsLeavingOut: endsLeavingOut)
    }

    /// A native body (`POST /v1/samples`): NDJSON, one sample object or tombstone a line, in
    /// the encoding of `PulsoJSONEncoder` with its additive fields. Blank lines are ignored;
    /// a line that is not a JSON object fails the whole body (nothing is written).
    static func parseNDJSON(_ body: [UInt8], userId: String?, keepsUserIds: Bool = false,
                            endsLeavingOut: Set<String> = []) throws(Failure) -> Batch {
        var batch = Batch()
        batch.endsLeaveOut = endsLeavingOut
        var failed = false
        body.withUnsafeBufferPointer { buffer in
            var reuse = PulsoElement.Reuse()
            var lineStart = 0
            while lineStart < buffer.count && !failed {
                var lineEnd = lineStart
                while lineEnd < buffer.count && buffer[lineEnd] != 0x0A { lineEnd += 1 }
                let line = UnsafeBufferPointer(rebasing: buffer[lineStart..<lineEnd])
                lineStart = lineEnd + 1
                guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
                batch.received += 1
                var scanner = JSONScanner(line)
                var element: PulsoElement?
                if let scanned = try? PulsoElement(scanning: &scanner, reusing: &reuse) {
                    scanner.skipWhitespace()
                    if scanner.atEnd { element = scanned }
                }
                if element == nil, let object = JSONValues.parse(Array(line)) as? [String: Any] {
                    element = PulsoElement(dictionary: object)
                }
                guard let element else {
                    failed = true
                    continue
                }
                add(element, index: batch.received - 1, userId: userId, keepsUserIds: keepsUserIds, to: &batch, json: line)
            }
        }
        if failed { throw .badJSON }
        return batch
    }

    /// The fallback path, through `JSONSerialization`'s types, one element at a time (its whole
    /// tree would take many times the body: `JSONValues.tree`).
    static func parseWithFoundation(_ body: [UInt8], userId: String?, keepsUserIds: Bool = false,
                                    endsLeavingOut: Set<String> = []) throws(Failure) -> Batch {
        guard let root = JSONValues.tree(body) else { throw .badJSON }
        guard let elements = JSONValues.entries(root) else { throw .notArray }
        var batch = Batch()
        batch.endsLeaveOut = endsLeavingOut
        batch.received = elements.count
        batch.items.reserveCapacity(elements.count)
        batch.itemIndices.reserveCapacity(elements.count)
        for (index, value) in elements.enumerated() {
            guard let object = JSONValues.foundationValue(value) as? [String: Any] else {
                batch.skip(SkippedElement(index: index, problem: notAnObject))
                continue
            }
            let element = PulsoElement(dictionary: object)
            if element.hasParts, let json = try? JSONSerialization.data(withJSONObject: object) {
                Array(json).withUnsafeBufferPointer { add(element, index: index, userId: userId, keepsUserIds: keepsUserIds, to: &batch, json: $0) }
            } else {
                add(element, index: index, userId: userId, keepsUserIds: keepsUserIds, to: &batch)
            }
        }
        return batch
    }

    /// The byte-level path: nil when the body is not a well-formed array this reader takes.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, userId: String?, keepsUserIds: Bool = false,
                     endsLeavingOut: Set<String> = []) -> Batch? {
        var scanner = JSONScanner(bytes)
        var batch = Batch()
        batch.endsLeaveOut = endsLeavingOut
        // About 230 bytes a sample element: one allocation instead of a dozen doublings.
        batch.items.reserveCapacity(min(bytes.count / 200, 1 << 20))
        batch.itemIndices.reserveCapacity(min(bytes.count / 200, 1 << 20))
        var reuse = PulsoElement.Reuse()
        var element = PulsoElement()
        do {
            try scanner.consume(UInt8(ascii: "["))
            if try !scanner.consumeIf(UInt8(ascii: "]")) {
                repeat {
                    batch.received += 1
                    if try scanner.peek() == UInt8(ascii: "{") {
                        let begin = scanner.index
                        try element.read(&scanner, reusing: &reuse)
                        add(element, index: batch.received - 1, userId: userId, keepsUserIds: keepsUserIds, to: &batch,
                            json: UnsafeBufferPointer(rebasing: bytes[begin..<scanner.index]))
                    } else {
                        try scanner.skipValue()
                        batch.skip(SkippedElement(index: batch.received - 1, problem: notAnObject))
                    }
                } while try scanner.next(close: UInt8(ascii: "]"))
            }
            scanner.skipWhitespace()
            guard scanner.atEnd else { return nil }
            return batch
        } catch {
            return nil
        }
    }

    /// Adds the element at `index` of the body to `batch`: its sample or tombstone, or a skip.
    /// `json`: the element's text, for the parts another healthrouter sends (`mergeParts`).
    /// `keepsUserIds`: the token forwards several users' samples (`forwarded_user_ids`): an element's
    /// own `userId`, when it has one, is its user.
    private static func add(_ element: PulsoElement, index: Int, userId caller: String?, keepsUserIds: Bool = false,
                            to batch: inout Batch, json: UnsafeBufferPointer<UInt8>? = nil) {
        let userId = keepsUserIds ? element.userId.flatMap { $0.isEmpty ? nil : $0 } ?? caller : caller
        // A forwarded `userId` of the wrong type from a token whose items keep theirs: whose the
        // sample or deletion is, is not known (filed under the forwarder, it would be another's).
        if keepsUserIds && element.mistyped.contains(PulsoElement.Field.userId.name) {
            batch.skip(SkippedElement(index: index, uuid: element.uuid, problem: .init(
                field: "userId", reason: "of another JSON type than a string: whose it is is not known")))
            return
        }
        if let ids = element.deleted {
            if !ids.isEmpty {
                batch.items.append(.tombstone(Tombstone(ids: ids, userId: userId)))
                batch.itemIndices.append(index)
            }
            return
        }
        var sample: Sample
        do {
            sample = try self.sample(from: element, userId: userId)
        } catch {
            batch.skip(SkippedElement(index: index, uuid: element.uuid.flatMap { $0.isEmpty ? nil : $0 }, problem: error))
            return
        }
        // One of Pulso's own fields of the wrong JSON type: skipped, as a sample stored without it
        // would replace the version stored before, field and all; so is a number out of a double's range.
        let pulsos = element.mistyped.filter { PulsoElement.Field.byName[$0]?.isPulsos == true }
        if let field = element.outOfRange.first {
            batch.skip(SkippedElement(index: index, uuid: sample.id, problem: .init(field: field, reason: "out of a double's range")))
            return
        }
        if !pulsos.isEmpty {
            batch.skip(SkippedElement(index: index, uuid: sample.id, problem: .init(
                field: pulsos.sorted().joined(separator: ", "),
                reason: "of another JSON type than Pulso's protocol gives (a number for a string, a string for an object, …)")))
            return
        }
        // One of healthrouter's additive fields (which a newer Pulso could send in another shape),
        // or parts that cannot be read: the sample is kept without them, and the log names them (a
        // forward that comes without its parts keeps those the journal holds).
        // (A `userId` a token's samples do not keep is nothing left out.)
        var leftOut = element.mistyped.filter { keepsUserIds || $0 != PulsoElement.Field.userId.name }
        if element.hasParts, let json {
            do {
                try mergeParts(from: json, into: &sample)
            } catch {
                leftOut.append("parts (\(SkippedElement.clipped(error.problem, limit: 60)))")
            }
            if let field = sample.fieldOutOfRange {
                batch.skip(SkippedElement(index: index, uuid: sample.id,
                                          problem: .init(field: field, reason: "out of a double's range")))
                return
            }
        }
        if !leftOut.isEmpty {
            batch.leftOut += 1
            if batch.leftOutExamples.count < reportedSkips {
                batch.leftOutExamples.append("#\(index) uuid=\(SkippedElement.clipped(sample.id)) \(leftOut.sorted().joined(separator: ", "))")
            }
        }
        guard batch.addFirst(sample, index: index) else { return }
        if !batch.endsLeaveOut.isEmpty && batch.endsLeaveOut.contains(SampleIdKey.canonicalCase(sample.id)) { return }
        // Keyed as Pulso's server names its files (`_deleted` and an empty type as `unknown`).
        batch.noteEnd(key: PulsoFileStem.of(key: element.type ?? "unknown"), end: element.end!, instant: sample.end)
    }

    /// Gives `sample` the parts another healthrouter's line carries (a workout's events, statistics,
    /// activities and routes, HRV beats, a correlation's members, a record), read from the
    /// element's JSON as a replay reads them (`PulsoJSONDecoder`). Throws what is wrong with them.
    static func mergeParts(from json: UnsafeBufferPointer<UInt8>, into sample: inout Sample) throws(PulsoJSONDecoder.Failure) {
        let decoded: HealthItem
        do {
            decoded = try PulsoJSONDecoder.decode(ArraySlice(json)).item
        } catch let failure as PulsoJSONDecoder.Failure {
            throw failure
        } catch {
            throw PulsoJSONDecoder.Failure("\(error)")
        }
        guard case .sample(let carried) = decoded else { return }
        switch (sample.detail, carried.detail) {
        case (.workout(var workout), .workout(let parts)):
            workout.events = parts.events
            workout.statistics = parts.statistics
            workout.activities = parts.activities
            workout.routes = parts.routes
            sample.detail = .workout(workout)
        case (.none, .heartbeats), (.none, .correlation), (.none, .record):
            sample.detail = carried.detail
        default:
            break
        }
    }

    /// One sample element as a canonical sample. Throws the field at fault and why without a
    /// uuid, with a `type` that is not a string, without readable dates, with the end before
    /// the start, or with a value out of a double's range.
    static func sample(from element: PulsoElement, userId: String?) throws(SkippedElement.Problem) -> Sample {
        guard let id = element.uuid, !id.isEmpty else {
            throw SkippedElement.Problem(field: "uuid", reason: "missing, empty or not a string")
        }
        guard !element.typeIsNotAString else { throw SkippedElement.Problem(field: "type", reason: "not a string") }
        func date(_ field: String, _ text: String?, _ read: Timestamp?) throws(SkippedElement.Problem) -> Timestamp {
            if let read { return read }
            guard let text else { throw SkippedElement.Problem(field: field, reason: "missing, or not a string") }
            guard let instant = HealthDateParser.parse(text) else {
                throw SkippedElement.Problem(field: field, reason: "\(SkippedElement.quoted(text)) cannot be read as a date")
            }
            return instant
        }
        let start = try date("start", element.start, element.startInstant)
        let end = try date("end", element.end, element.end == nil ? nil : element.endInstant)
        guard end >= start else { throw SkippedElement.Problem(field: "end", reason: "before the start") }
        let key = element.type ?? "unknown"
        // A forwarded line without `type` names its type by `identifier`.
        let known = TypeRegistry.type(key: key) ?? TypeRegistry.resolve(key)
            ?? (element.type == nil ? element.identifier.flatMap { TypeRegistry.type(identifier: $0) } : nil)
        let identifier = element.identifier ?? known?.identifier ?? key

        var kind: SampleKind
        if let name = element.kind, let named = SampleKind.allCases.first(where: { $0.name == name }) {
            kind = named
        } else if let known {
            kind = known.kind
        } else if key == "workout" || element.workoutActivityTypePresent {
            kind = .workout
        } else if case .string = element.value {
            kind = .category
        } else {
            kind = .quantity
        }

        var sample = Sample(id: id, type: identifier, kind: kind, start: start, end: end,
                            sourceName: element.source ?? "", userId: userId)
        // A sleep stage without its stage: stored, it would replace the stage sent before with none.
        // Not from another healthrouter (its `kind` says so), which forwards what its journal
        // holds: an export's record without a value is stored there, and here alike.
        if kind == .category, known?.isInPulsoProtocol == true, !CategoryValueNames.pulsoOmitsValue(type: identifier),
           element.categoryValue == nil, element.kind == nil {
            switch element.value {
            case .none, .null: throw SkippedElement.Problem(field: "value", reason: "missing or null (this category's value is required)")
            default: break
            }
        }
        switch element.value {
        case .string(let text) where kind == .quantity:
            // A quantity's value is a number: a text there is not stored as a category.
            throw SkippedElement.Problem(field: "value", reason: "\(SkippedElement.quoted(text)) is not a number (a quantity's value)")
        case .string(let text):
            sample.categoryValue = element.categoryValue ?? CategoryValueNames.healthKitName(text, type: identifier)
            sample.value = element.numericValue
        case .number(let number):
            // Out of a double's range (`1e400`): this sample is skipped, not the batch.
            guard number.isFinite else { throw SkippedElement.Problem(field: "value", reason: "out of a double's range") }
            sample.value = number
        case .other:
            // An object, array or boolean: stored, it would replace the value sent before with none.
            throw SkippedElement.Problem(field: "value", reason: "not a number or a string")
        case .null where kind == .quantity:
            throw SkippedElement.Problem(field: "value", reason: "null (a quantity's value is required)")
        case .none where kind == .quantity && known != nil:
            throw SkippedElement.Problem(field: "value", reason: "missing (a quantity's value is required)")
        case .none, .null:
            break
        }
        // A phone's quantity without `unit` is in the protocol's unit for its type (PROTOCOL §1.7):
        // stored with it, beside the same type's values that name it. (A forward from another
        // healthrouter, its `kind` given, says what its journal holds, unit or none.)
        sample.unit = element.unit ?? (kind == .quantity && element.kind == nil ? known?.canonicalUnit : nil)
        sample.sourceBundleId = element.sourceBundleId
        sample.sourceVersion = element.sourceVersion
        sample.device = element.device
        if let created = element.creationDate { sample.createdAt = HealthDateParser.parse(created) }

        sample.timeZone = element.timeZone
        sample.metadata = element.metadata
        sample.extraFields = element.extraFields.lastOfEachKeySorted()
        if let zone = element.metadataTimeZone {
            // The fast path set `metadata.timeZone` aside: the sample's zone, unless the
            // element names its zone itself, and then it stays metadata.
            if element.timeZone == nil {
                sample.timeZone = zone
            } else {
                let index = sample.metadata.firstIndex { $0.key >= "timeZone" } ?? sample.metadata.count
                sample.metadata.insert(MetadataEntry("timeZone", .string(zone)), at: index)
            }
        } else if element.timeZone == nil, let index = sample.metadata.firstIndex(where: { $0.key == "timeZone" }),
                  case .string(let zone) = sample.metadata[index].value {
            sample.timeZone = zone
            sample.metadata.remove(at: index)
        }
        // A forward of a line healthrouter wrote: the `protectionUsed` its encoder added beside
        // HealthKit's key leaves the metadata, as a replay of the line takes it out.
        if element.kind != nil { PulsoProtectionUsed.removeDerived(type: identifier, from: &sample.metadata) }

        if kind == .workout {
            let wire = element.workoutActivityType ?? "other"
            var workout = Workout(activityType: element.activityType ?? WorkoutActivityName.healthKitName(wire))
            workout.durationSeconds = element.duration
            workout.totalEnergyBurnedKilocalories = element.totalEnergyBurned
            workout.totalBasalEnergyBurnedKilocalories = element.totalBasalEnergyBurned
            workout.totalDistanceMeters = element.totalDistance
            workout.averageHeartRate = element.averageHeartRate
            workout.minimumHeartRate = element.minimumHeartRate
            workout.maximumHeartRate = element.maximumHeartRate
            sample.detail = .workout(workout)
        }
        SampleNormalizer.normalize(&sample, convention: .canonical)
        if let field = sample.fieldOutOfRange {
            throw SkippedElement.Problem(field: field, reason: "out of range once converted to its canonical unit")
        }
        return sample
    }
}
