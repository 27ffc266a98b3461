import Foundation
import HealthRouterCore

/// One element of a Pulso `/ingest` array, as read from the wire: a sample object's fields
/// (Pulso's and healthrouter's additive ones) or a tombstone. Fields of the wrong JSON type
/// read as absent, as Pulso's reference server treats them; a `type` of the wrong JSON type
/// is also noted (`typeIsNotAString`), since an absent one means `unknown`.
struct PulsoElement {
    enum Value {
        /// `other`: an object, array or boolean.
        case none, number(Double), string(String), null, other
    }

    var uuid: String?
    var type: String?
    /// Set when `type` is there but not a string (`["x"]`, `null`): the element is invalid,
    /// where an element without `type` is of type `unknown`.
    var typeIsNotAString = false
    var identifier: String?
    var kind: String?
    /// `start` as written; the fast path reads only `startInstant` (nil: absent or unreadable),
    /// and keeps the text of an unreadable one, for the log.
    var start: String?
    var end: String?
    /// The dates the fast path parsed straight from the body's bytes.
    var startInstant: Timestamp?
    var endInstant: Timestamp?
    var value: Value = .none
    var numericValue: Double?
    var categoryValue: String?
    var unit: String?
    var source: String?
    var sourceBundleId: String?
    var sourceVersion: String?
    var device: String?
    var creationDate: String?
    var timeZone: String?
    /// The metadata entries, sorted by key (key order is not significant on the wire).
    var metadata: [MetadataEntry] = []
    /// The fast path's `metadata.timeZone` string, kept out of `metadata` (most elements have
    /// no other entry, and then no array is allocated).
    var metadataTimeZone: String?
    var workoutActivityTypePresent = false
    var workoutActivityType: String?
    var activityType: String?
    var duration: Double?
    var totalEnergyBurned: Double?
    var totalBasalEnergyBurned: Double?
    var totalDistance: Double?
    var averageHeartRate: Double?
    var minimumHeartRate: Double?
    var maximumHeartRate: Double?
    /// Set when the element has `deleted` (whatever its type): a tombstone of these ids.
    var deleted: [String]?
    /// The fields none of the above is, nor one healthrouter's own lines have
    /// (`PulsoJSONDecoder.knownFields`): a newer client's additive ones, as `Sample.extraFields`
    /// keeps them; in the order sent here, sorted when the sample is made.
    var extraFields: [MetadataEntry] = []
    /// The fields other than `value` sent with a value of the wrong type (`"unit": 5`), which the
    /// sample is stored without; a `null` is no value, as if the field were absent.
    var mistyped: [String] = []
    /// The number fields other than `value` whose number is out of a double's range (`1e400`):
    /// read as none, like `mistyped`.
    var outOfRange: [String] = []
    /// The `userId` another healthrouter's line carries (its sample's user): taken only from a
    /// token with `forwarded_user_ids` (`PulsoBatchParser`); any other push is its token's user's.
    var userId: String?
    /// Whether the element has a part healthrouter's own lines carry (`events`, `routes`, `beats`,
    /// `members`, `record`, …: another healthrouter's forward), read from the element's JSON apart
    /// (`PulsoBatchParser.mergeParts`).
    var hasParts = false

    /// The fields that hold a sample's parts in healthrouter's lines.
    static let partFields: Set<String> = ["events", "statistics", "activities", "routes", "members", "beats", "record"]

    /// Reads the element from a `JSONSerialization` dictionary (the fallback path).
    init(dictionary object: [String: Any]) {
        userId = object["userId"] as? String
        if let list = object["deleted"] {
            deleted = (list as? [Any])?.compactMap { $0 as? String } ?? []
            if let sent = object["userId"], !(sent is NSNull), userId == nil { mistyped = [Field.userId.name] }
            return
        }
        uuid = object["uuid"] as? String
        type = object["type"] as? String
        typeIsNotAString = type == nil && object["type"] != nil
        identifier = object["identifier"] as? String
        kind = object["kind"] as? String
        start = object["start"] as? String
        end = object["end"] as? String
        if let text = object["value"] as? String {
            value = .string(text)
        } else if let number = JSONValues.number(object["value"]) {
            value = .number(number)
        } else if object["value"] is NSNull {
            value = .null
        } else if object["value"] != nil {
            value = .other
        }
        numericValue = JSONValues.number(object["numericValue"])
        categoryValue = object["categoryValue"] as? String
        unit = object["unit"] as? String
        source = object["source"] as? String
        sourceBundleId = object["sourceBundleId"] as? String
        sourceVersion = object["sourceVersion"] as? String
        device = object["device"] as? String
        creationDate = object["creationDate"] as? String
        timeZone = object["timeZone"] as? String
        if let dictionary = object["metadata"] as? [String: Any] {
            for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                if let converted = JSONValues.metadataValue(value) { metadata.append(MetadataEntry(key, converted)) }
            }
        }
        workoutActivityTypePresent = object["workoutActivityType"] != nil
        workoutActivityType = object["workoutActivityType"] as? String
        activityType = object["activityType"] as? String
        duration = JSONValues.number(object["duration"])
        totalEnergyBurned = JSONValues.number(object["totalEnergyBurned"])
        totalBasalEnergyBurned = JSONValues.number(object["totalBasalEnergyBurned"])
        totalDistance = JSONValues.number(object["totalDistance"])
        averageHeartRate = JSONValues.number(object["averageHeartRate"])
        minimumHeartRate = JSONValues.number(object["minimumHeartRate"])
        maximumHeartRate = JSONValues.number(object["maximumHeartRate"])
        for (key, value) in object where Field.byName[key] == nil && !PulsoJSONDecoder.knownFields.contains(key) {
            if let converted = JSONValues.metadataValue(value, nestedAsJSON: true) { extraFields.append(MetadataEntry(key, converted)) }
        }
        hasParts = object.keys.contains { Self.partFields.contains($0) }
        for field in Field.allCases where field != .value && field != .deleted {
            guard let sent = object[field.name], !(sent is NSNull) else { continue }
            let fits = switch field.expected {
            case .string: sent is String
            case .number: JSONValues.number(sent) != nil
            case .object: sent is [String: Any]
            }
            if !fits { mistyped.append(field.name) }
        }
    }

    /// The fields `init(scanning:reusing:)` knows, by name.
    enum Field: CaseIterable {
        case uuid, type, start, end, value, unit, source, sourceBundleId, metadata, deleted, identifier, kind
        case numericValue, categoryValue, sourceVersion, device, creationDate, timeZone, workoutActivityType
        case activityType, duration, totalEnergyBurned, totalBasalEnergyBurned, totalDistance
        case averageHeartRate, minimumHeartRate, maximumHeartRate, userId

        var name: String { "\(self)" }

        enum Expected { case string, number, object }

        /// Whether the field is one of Pulso's protocol (v1 is frozen: only additive fields may
        /// come), not one of healthrouter's additive ones, which a newer Pulso could add with
        /// another shape.
        var isPulsos: Bool {
            switch self {
            case .uuid, .type, .start, .end, .value, .unit, .source, .sourceBundleId, .metadata, .deleted,
                 .workoutActivityType, .duration, .totalEnergyBurned, .totalBasalEnergyBurned, .totalDistance,
                 .averageHeartRate, .minimumHeartRate, .maximumHeartRate: true
            default: false
            }
        }

        /// What a value of the field is (`value` and `deleted` are read apart).
        var expected: Expected {
            switch self {
            case .numericValue, .duration, .totalEnergyBurned, .totalBasalEnergyBurned, .totalDistance,
                 .averageHeartRate, .minimumHeartRate, .maximumHeartRate: .number
            case .metadata: .object
            default: .string
            }
        }

        /// The fields by the length of their name, with the name's bytes: a key is matched
        /// against the few names of its length without making a `String` of it.
        static let byLength: [[(name: [UInt8], field: Field)]] = {
            var table = [[(name: [UInt8], field: Field)]](repeating: [], count: 24)
            for field in allCases { table[field.name.utf8.count].append((Array(field.name.utf8), field)) }
            return table
        }()

        static let byName: [String: Field] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

        static func named(_ key: UnsafeBufferPointer<UInt8>) -> Field? {
            guard key.count < byLength.count else { return nil }
            for candidate in byLength[key.count] where candidate.name.withUnsafeBufferPointer({
                memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0
            }) {
                return candidate.field
            }
            return nil
        }
    }

    /// The strings of the last element of a batch, for fields whose value usually repeats:
    /// the same bytes again reuse the `String` instead of allocating another.
    struct Reuse {
        var type = JSONScanner.ReusedString()
        var unit = JSONScanner.ReusedString()
        var source = JSONScanner.ReusedString()
        var sourceBundleId = JSONScanner.ReusedString()
        var sourceVersion = JSONScanner.ReusedString()
        var device = JSONScanner.ReusedString()
        var identifier = JSONScanner.ReusedString()
        var kind = JSONScanner.ReusedString()
        var timeZone = JSONScanner.ReusedString()
        var value = JSONScanner.ReusedString()
        var categoryValue = JSONScanner.ReusedString()
        var metadataKey = JSONScanner.ReusedString()
        var metadataValue = JSONScanner.ReusedString()
    }

    /// Reads the object whose `{` comes next from `scanner` (the fast path). `reuse` carries
    /// repeated strings from one element of the same body to the next.
    init(scanning scanner: inout JSONScanner, reusing reuse: inout Reuse) throws(JSONScanner.Unsupported) {
        try read(&scanner, reusing: &reuse)
    }

    /// Becomes the element whose `{` comes next from `scanner`: `init(scanning:reusing:)` in
    /// place, so that a batch reads every element into one value instead of copying each.
    mutating func read(_ scanner: inout JSONScanner, reusing reuse: inout Reuse) throws(JSONScanner.Unsupported) {
        self = PulsoElement()
        try scanner.consume(UInt8(ascii: "{"))
        if try scanner.consumeIf(UInt8(ascii: "}")) { return }
        var tombstone: [String]?
        repeat {
            let field: Field?
            var unknownKey: String?
            if let key = try scanner.rawString() {
                field = Field.named(key)
                if field == nil { unknownKey = String(decoding: key, as: UTF8.self) }
            } else {
                let key = try scanner.string()
                field = Field.byName[key]
                if field == nil { unknownKey = key }
            }
            // Fields healthrouter's own lines have that a push does not read (a forwarded
            // workout's parts, `userId`, `receivedAt`) are not a client's additive fields.
            if let key = unknownKey, PulsoJSONDecoder.knownFields.contains(key) {
                if Self.partFields.contains(key) { hasParts = true }
                unknownKey = nil
            }
            try scanner.consume(UInt8(ascii: ":"))
            // A value of the wrong type for its field is read as none, and the field named for the log.
            var startsANumber = false
            if let field, field != .value, field != .deleted {
                let first = try scanner.peek()
                startsANumber = first == UInt8(ascii: "-") || (0x30...0x39).contains(first)
                let fits = switch field.expected {
                case .string: first == UInt8(ascii: "\"")
                case .number: first == UInt8(ascii: "-") || (0x30...0x39).contains(first)
                case .object: first == UInt8(ascii: "{")
                }
                if !fits && first != UInt8(ascii: "n") { mistyped.append(field.name) }
            }
            switch field {
            case .uuid: uuid = try Self.string(&scanner)
            case .type:
                type = try Self.string(&scanner, reusing: &reuse.type)
                typeIsNotAString = type == nil
            case .start:
                (start, startInstant) = try Self.date(&scanner, keepingText: false)
            case .end:
                (end, endInstant) = try Self.date(&scanner, keepingText: true)
            case .value:
                switch try scanner.peek() {
                case UInt8(ascii: "\""): value = .string(try scanner.string(reusing: &reuse.value))
                case UInt8(ascii: "-"), 0x30...0x39: value = .number(try scanner.number())
                case UInt8(ascii: "n"):
                    try scanner.skipValue()
                    value = .null
                default:
                    try scanner.skipValue()
                    value = .other
                }
            case .unit: unit = try Self.string(&scanner, reusing: &reuse.unit)
            case .source: source = try Self.string(&scanner, reusing: &reuse.source)
            case .sourceBundleId: sourceBundleId = try Self.string(&scanner, reusing: &reuse.sourceBundleId)
            case .metadata: (metadata, metadataTimeZone) = try Self.metadata(&scanner, reusing: &reuse)
            case .deleted: tombstone = try Self.ids(&scanner)
            case .identifier: identifier = try Self.string(&scanner, reusing: &reuse.identifier)
            case .kind: kind = try Self.string(&scanner, reusing: &reuse.kind)
            case .numericValue: numericValue = try Self.number(&scanner)
            case .categoryValue: categoryValue = try Self.string(&scanner, reusing: &reuse.categoryValue)
            case .sourceVersion: sourceVersion = try Self.string(&scanner, reusing: &reuse.sourceVersion)
            case .device: device = try Self.string(&scanner, reusing: &reuse.device)
            case .creationDate: creationDate = try Self.string(&scanner)
            case .timeZone: timeZone = try Self.string(&scanner, reusing: &reuse.timeZone)
            case .workoutActivityType:
                workoutActivityTypePresent = true
                workoutActivityType = try Self.string(&scanner)
            case .activityType: activityType = try Self.string(&scanner)
            case .duration: duration = try Self.number(&scanner)
            case .totalEnergyBurned: totalEnergyBurned = try Self.number(&scanner)
            case .totalBasalEnergyBurned: totalBasalEnergyBurned = try Self.number(&scanner)
            case .totalDistance: totalDistance = try Self.number(&scanner)
            case .averageHeartRate: averageHeartRate = try Self.number(&scanner)
            case .minimumHeartRate: minimumHeartRate = try Self.number(&scanner)
            case .maximumHeartRate: maximumHeartRate = try Self.number(&scanner)
            case .userId: userId = try Self.string(&scanner)
            case nil:
                if let unknownKey {
                    if let value = try Self.fieldValue(&scanner, nestedAsJSON: true) { extraFields.append(MetadataEntry(unknownKey, value)) }
                } else {
                    try scanner.skipValue()
                }
            }
            if startsANumber, let field, field.expected == .number, numberValue(field) == nil { outOfRange.append(field.name) }
        } while try scanner.next(close: UInt8(ascii: "}"))
        if let tombstone {
            let owner = userId, ownerMistyped = mistyped.contains(Field.userId.name)
            self = PulsoElement()
            deleted = tombstone
            userId = owner
            if ownerMistyped { mistyped = [Field.userId.name] }
        }
    }

    init() {}

    /// The number read for a number field.
    private func numberValue(_ field: Field) -> Double? {
        switch field {
        case .numericValue: numericValue
        case .duration: duration
        case .totalEnergyBurned: totalEnergyBurned
        case .totalBasalEnergyBurned: totalBasalEnergyBurned
        case .totalDistance: totalDistance
        case .averageHeartRate: averageHeartRate
        case .minimumHeartRate: minimumHeartRate
        case .maximumHeartRate: maximumHeartRate
        default: nil
        }
    }

    private static func string(_ scanner: inout JSONScanner) throws(JSONScanner.Unsupported) -> String? {
        if try scanner.peek() == UInt8(ascii: "\"") { return try scanner.string() }
        try scanner.skipValue()
        return nil
    }

    private static func string(_ scanner: inout JSONScanner,
                               reusing slot: inout JSONScanner.ReusedString) throws(JSONScanner.Unsupported) -> String? {
        if try scanner.peek() == UInt8(ascii: "\"") { return try scanner.string(reusing: &slot) }
        try scanner.skipValue()
        return nil
    }

    /// A date string, parsed from its bytes; its text too when `keepingText`. A date that
    /// cannot be read is nil both ways, as is a value that is not a string.
    private static func date(_ scanner: inout JSONScanner,
                             keepingText: Bool) throws(JSONScanner.Unsupported) -> (String?, Timestamp?) {
        guard try scanner.peek() == UInt8(ascii: "\"") else {
            try scanner.skipValue()
            return (nil, nil)
        }
        // An unreadable date keeps its text whatever `keepingText` says: the log names it.
        // `-00:00` is RFC 3339's unknown offset, as healthrouter's own forward and dump write
        // an instant that recorded none: read as the replay reads it.
        if let raw = try scanner.rawString() {
            guard var instant = HealthDateParser.parse(raw) else { return (String(decoding: raw, as: UTF8.self), nil) }
            if raw.count >= 6, raw.suffix(6).elementsEqual("-00:00".utf8) { instant.utcOffsetSeconds = nil }
            return (keepingText ? String(decoding: raw, as: UTF8.self) : nil, instant)
        }
        let text = try scanner.string()
        guard var instant = HealthDateParser.parse(text) else { return (text, nil) }
        if text.hasSuffix("-00:00") { instant.utcOffsetSeconds = nil }
        return (keepingText ? text : nil, instant)
    }

    private static func number(_ scanner: inout JSONScanner) throws(JSONScanner.Unsupported) -> Double? {
        switch try scanner.peek() {
        case UInt8(ascii: "-"), 0x30...0x39:
            let number = try scanner.number()
            return number.isFinite ? number : nil
        default:
            try scanner.skipValue()
            return nil
        }
    }

    /// A `deleted` value: the strings of a list (other entries skipped); anything else is no ids.
    private static func ids(_ scanner: inout JSONScanner) throws(JSONScanner.Unsupported) -> [String] {
        guard try scanner.peek() == UInt8(ascii: "[") else {
            try scanner.skipValue()
            return []
        }
        scanner.index += 1
        var ids: [String] = []
        if try scanner.consumeIf(UInt8(ascii: "]")) { return ids }
        repeat {
            if let id = try string(&scanner) { ids.append(id) }
        } while try scanner.next(close: UInt8(ascii: "]"))
        return ids
    }

    /// A value as metadata keeps it: a string, a number (one out of a double's range as its
    /// text), a boolean, nil for null; an array or object as its compact JSON text.
    private static func fieldValue(_ scanner: inout JSONScanner,
                                   nestedAsJSON: Bool = false) throws(JSONScanner.Unsupported) -> MetadataValue? {
        switch try scanner.peek() {
        case UInt8(ascii: "\""):
            return .string(try scanner.string())
        case UInt8(ascii: "-"), 0x30...0x39:
            scanner.skipWhitespace()
            let start = scanner.index
            let number = try scanner.number()
            return number.isFinite ? .number(number)
                : .string(String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[start..<scanner.index]), as: UTF8.self))
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return try scanner.literal().map { .bool($0) }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let start = scanner.index
            try scanner.skipValue()
            guard let nested = try? JSONParser.parse(UnsafeBufferPointer(rebasing: scanner.bytes[start..<scanner.index])) else {
                throw JSONScanner.Unsupported()
            }
            return PulsoJSONDecoder.metadataValue(nested, nestedAsJSON: nestedAsJSON)
        default:
            throw JSONScanner.Unsupported()
        }
    }

    /// A metadata object of string, number and boolean values (null skipped); nested values
    /// are left to the fallback path.
    /// `timeZone` (a string) comes back on its own, the other entries sorted.
    private static func metadata(_ scanner: inout JSONScanner,
                                 reusing reuse: inout Reuse) throws(JSONScanner.Unsupported) -> ([MetadataEntry], String?) {
        guard try scanner.peek() == UInt8(ascii: "{") else {
            try scanner.skipValue()
            return ([], nil)
        }
        scanner.index += 1
        var entries: [MetadataEntry] = []
        var timeZone: String?
        if try scanner.consumeIf(UInt8(ascii: "}")) { return (entries, nil) }
        repeat {
            let key = try scanner.string(reusing: &reuse.metadataKey)
            try scanner.consume(UInt8(ascii: ":"))
            switch try scanner.peek() {
            case UInt8(ascii: "\""):
                let value = try scanner.string(reusing: &reuse.metadataValue)
                if key == "timeZone" && timeZone == nil {
                    timeZone = value
                } else {
                    entries.append(MetadataEntry(key, .string(value)))
                }
            default:
                // A number out of a double's range as its text; an array or object (not Pulso's,
                // but other producers send them) as its compact JSON, read here rather than by the
                // Foundation path, which refuses a whole body for one number out of a double's range.
                if let value = try Self.fieldValue(&scanner) { entries.append(MetadataEntry(key, value)) }
            }
        } while try scanner.next(close: UInt8(ascii: "}"))
        // A key given twice once, its last value: as the fallback path's dictionary keeps it.
        return (entries.lastOfEachKeySorted(), timeZone)
    }
}
