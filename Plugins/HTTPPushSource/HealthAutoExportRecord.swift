import Foundation
import HealthRouterCore

/// An entry of a Health Auto Export section healthrouter has no samples for (`stateOfMind`,
/// `medications`, `symptoms`, `cycleTracking`, `ecg`, `heartRateNotifications`, or a section a
/// later version adds), kept whole as a record (`SampleKind.other`), as an export's clinical
/// records are: nothing a body carries is dropped while the reply says it was taken.
///
/// - Type `HealthAutoExport_<section>` (`HealthAutoExport_medications`); the record's element is
///   the section's name.
/// - Attributes: the entry's fields holding a string, number or boolean, by name (sorted: the
///   app's JSON gives its keys in no fixed order), numbers and booleans as JSON text; a field
///   holding an object or array is a child element of that name whose `json` attribute is its
///   compact JSON (keys sorted), an ECG's voltages included. Null fields are left out.
/// - Times: `start` (else `startDate`, else `date`), and `end` (else `endDate`, else the start).
///   An entry without a readable one is skipped (and the log says why).
/// - Source: `source` when it is a string, or an object's `name` (a heart-rate notification's
///   `{"name": "Apple Watch"}`); else `Fingerprint.unnamedSource`.
/// - Id: derived from the user and the record's fingerprint (every field), so the same entry
///   sent again is a duplicate and an entry that changed (a dose's status) is one more record.
enum HealthAutoExportRecord {
    static let typePrefix = "HealthAutoExport_"

    /// The record `entry` of `section` is, or nil when it is no object or has no readable time.
    static func read(_ entry: JSONValue, section: String, userId: String?) -> Sample? {
        guard case .object(let fields) = entry, let (start, end) = interval(fields) else { return nil }
        var attributes: [GenericRecord.Attribute] = []
        var children: [GenericRecord] = []
        for (name, value) in sortedFields(fields) {
            switch value {
            case .null: continue
            case .string(let text): attributes.append(.init(name, text))
            case .number, .bool: attributes.append(.init(name, json(value)))
            case .array, .object: children.append(GenericRecord(element: name, attributes: [.init("json", json(value))]))
            }
        }
        var sample = Sample(id: "", type: typePrefix + section, kind: .other, start: start, end: end,
                            sourceName: sourceName(fields), userId: userId,
                            detail: .record(GenericRecord(element: section, attributes: attributes, children: children)))
        sample.id = derivedId(of: sample, userId: userId)
        return sample
    }

    /// Why `entry` gives no record, for the log.
    static func problem(_ entry: JSONValue) -> String {
        guard case .object(let fields) = entry else { return "not a JSON object" }
        let dates = ["start", "startDate", "date", "end", "endDate"].compactMap { key in
            text(fields, key).map { "\(key) \(SkippedElement.quoted($0))" }
        }
        return dates.isEmpty ? "no start, startDate or date" : dates.joined(separator: ", ") + " cannot be read (or ends before it starts)"
    }

    /// The last value of each field name (JSON's rule for a repeated key), by name.
    private static func sortedFields(_ fields: [(key: String, value: JSONValue)]) -> [(String, JSONValue)] {
        var byName: [String: JSONValue] = [:]
        for field in fields { byName[field.key] = field.value }
        return byName.sorted { $0.key < $1.key }
    }

    private static func text(_ fields: [(key: String, value: JSONValue)], _ key: String) -> String? {
        guard case .string(let text)? = fields.last(where: { $0.key == key })?.value else { return nil }
        return text
    }

    private static func interval(_ fields: [(key: String, value: JSONValue)]) -> (Timestamp, Timestamp)? {
        guard let startText = text(fields, "start") ?? text(fields, "startDate") ?? text(fields, "date"),
              let start = HealthDateParser.parse(startText) else { return nil }
        guard let endText = text(fields, "end") ?? text(fields, "endDate") else { return (start, start) }
        guard let end = HealthDateParser.parse(endText), end >= start else { return nil }
        return (start, end)
    }

    private static func sourceName(_ fields: [(key: String, value: JSONValue)]) -> String {
        switch fields.last(where: { $0.key == "source" })?.value {
        case .string(let name)? where !name.isEmpty: return name
        case .object(let source)?: return text(source, "name").flatMap { $0.isEmpty ? nil : $0 } ?? Fingerprint.unnamedSource
        default: return Fingerprint.unnamedSource
        }
    }

    private static func json(_ value: JSONValue) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.value(value, sortingKeys: true)
        return writer.text
    }

    /// A derived id (version digit 8, as Health Auto Export's period ids): the user's, and the
    /// record's fingerprint (its type, source, times, element and every attribute and child).
    private static func derivedId(of sample: Sample, userId: String?) -> String {
        let name = ["hae-record", userId ?? "", Fingerprint.text(of: sample)].joined(separator: "\u{1F}")
        var id = Array(UUIDv5.string(name: name).utf8)
        id[14] = UInt8(ascii: "8")
        return String(decoding: id, as: UTF8.self)
    }
}
