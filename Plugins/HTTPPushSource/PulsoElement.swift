import Foundation
import HealthRouterCore

/// One element of a Pulso `/ingest` array, as read from the wire: a sample object's fields
/// (Pulso's and healthrouter's additive ones) or a tombstone. Fields of the wrong JSON type
/// read as absent, as Pulso's reference server treats them.
struct PulsoElement {
    enum Value {
        case none, number(Double), string(String), other
    }

    var uuid: String?
    var type: String?
    var identifier: String?
    var kind: String?
    var start: String?
    var end: String?
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

    /// Reads the element from a `JSONSerialization` dictionary (the fallback path).
    init(dictionary object: [String: Any]) {
        if let list = object["deleted"] {
            deleted = (list as? [Any])?.compactMap { $0 as? String } ?? []
            return
        }
        uuid = object["uuid"] as? String
        type = object["type"] as? String
        identifier = object["identifier"] as? String
        kind = object["kind"] as? String
        start = object["start"] as? String
        end = object["end"] as? String
        if let text = object["value"] as? String {
            value = .string(text)
        } else if let number = JSONValues.number(object["value"]) {
            value = .number(number)
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
    }

    /// Reads the object whose `{` comes next from `scanner` (the fast path).
    init(scanning scanner: inout JSONScanner) throws(JSONScanner.Unsupported) {
        try scanner.consume(UInt8(ascii: "{"))
        if try scanner.consumeIf(UInt8(ascii: "}")) { return }
        var tombstone: [String]?
        repeat {
            let key = try scanner.string()
            try scanner.consume(UInt8(ascii: ":"))
            switch key {
            case "uuid": uuid = try Self.string(&scanner)
            case "type": type = try Self.string(&scanner)
            case "start": start = try Self.string(&scanner)
            case "end": end = try Self.string(&scanner)
            case "value":
                switch try scanner.peek() {
                case UInt8(ascii: "\""): value = .string(try scanner.string())
                case UInt8(ascii: "-"), 0x30...0x39: value = .number(try scanner.number())
                default:
                    try scanner.skipValue()
                    value = .other
                }
            case "unit": unit = try Self.string(&scanner)
            case "source": source = try Self.string(&scanner)
            case "sourceBundleId": sourceBundleId = try Self.string(&scanner)
            case "metadata": metadata = try Self.metadata(&scanner)
            case "deleted": tombstone = try Self.ids(&scanner)
            case "identifier": identifier = try Self.string(&scanner)
            case "kind": kind = try Self.string(&scanner)
            case "numericValue": numericValue = try Self.number(&scanner)
            case "categoryValue": categoryValue = try Self.string(&scanner)
            case "sourceVersion": sourceVersion = try Self.string(&scanner)
            case "device": device = try Self.string(&scanner)
            case "creationDate": creationDate = try Self.string(&scanner)
            case "timeZone": timeZone = try Self.string(&scanner)
            case "workoutActivityType":
                workoutActivityTypePresent = true
                workoutActivityType = try Self.string(&scanner)
            case "activityType": activityType = try Self.string(&scanner)
            case "duration": duration = try Self.number(&scanner)
            case "totalEnergyBurned": totalEnergyBurned = try Self.number(&scanner)
            case "totalBasalEnergyBurned": totalBasalEnergyBurned = try Self.number(&scanner)
            case "totalDistance": totalDistance = try Self.number(&scanner)
            case "averageHeartRate": averageHeartRate = try Self.number(&scanner)
            case "minimumHeartRate": minimumHeartRate = try Self.number(&scanner)
            case "maximumHeartRate": maximumHeartRate = try Self.number(&scanner)
            default: try scanner.skipValue()
            }
        } while try scanner.next(close: UInt8(ascii: "}"))
        if let tombstone { self = PulsoElement(); deleted = tombstone }
    }

    private init() {}

    private static func string(_ scanner: inout JSONScanner) throws(JSONScanner.Unsupported) -> String? {
        if try scanner.peek() == UInt8(ascii: "\"") { return try scanner.string() }
        try scanner.skipValue()
        return nil
    }

    private static func number(_ scanner: inout JSONScanner) throws(JSONScanner.Unsupported) -> Double? {
        switch try scanner.peek() {
        case UInt8(ascii: "-"), 0x30...0x39: return try scanner.number()
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

    /// A metadata object of string, number and boolean values (null skipped); nested values
    /// are left to the fallback path.
    private static func metadata(_ scanner: inout JSONScanner) throws(JSONScanner.Unsupported) -> [MetadataEntry] {
        guard try scanner.peek() == UInt8(ascii: "{") else {
            try scanner.skipValue()
            return []
        }
        scanner.index += 1
        var entries: [MetadataEntry] = []
        if try scanner.consumeIf(UInt8(ascii: "}")) { return entries }
        repeat {
            let key = try scanner.string()
            try scanner.consume(UInt8(ascii: ":"))
            switch try scanner.peek() {
            case UInt8(ascii: "\""): entries.append(MetadataEntry(key, .string(try scanner.string())))
            case UInt8(ascii: "-"), 0x30...0x39: entries.append(MetadataEntry(key, .number(try scanner.number())))
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                if let flag = try scanner.literal() { entries.append(MetadataEntry(key, .bool(flag))) }
            default:
                throw JSONScanner.Unsupported()
            }
        } while try scanner.next(close: UInt8(ascii: "}"))
        if entries.count > 1 { entries.sort { $0.key < $1.key } }
        return entries
    }
}
