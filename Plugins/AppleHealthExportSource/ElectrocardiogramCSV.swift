import Foundation
import HealthRouterCore

/// An Apple Watch ECG as an export writes it (`electrocardiograms/ecg_2022-01-01.csv`): header rows
/// `label,value` (`Name`, `Date of Birth`, `Recorded Date` as `2022-01-01 09:00:00 -0800`,
/// `Classification`, `Symptoms`, `Software Version`, `Device`, `Sample Rate` as `512 hertz`; the
/// labels are localized on other phones), blank rows, `Lead,Lead I`, `Unit,µV`, then one voltage a
/// line (the locale's decimal separator, sometimes a trailing comma).
///
/// It becomes one sample of kind `.other` and type `HKDataTypeIdentifierElectrocardiogram`, kept
/// whole as an `Electrocardiogram` record: every header row an attribute in file order (an English
/// label as a camelCase name, `recordedDate`; any other label as written), and one
/// `VoltageMeasurements` child whose `values` attribute is the voltages as a JSON array of numbers
/// (`[-3.95,12.5]`, what SQLite's `json_each` reads) and `count` their number. It starts at the
/// recorded date (a localized file: the first header value that is a date with a time) and lasts
/// as long as its voltages at the sample rate (no rate: no length). Its id is the content id of the
/// record, as for every record an export keeps whole: the same ECG in every export, whatever its
/// file's name there.
enum ElectrocardiogramCSV {
    static let type = "HKDataTypeIdentifierElectrocardiogram"

    /// The header labels of an English export and the attribute names they become.
    static let attributeNames: [String: String] = [
        "Name": "name", "Date of Birth": "dateOfBirth", "Recorded Date": "recordedDate",
        "Classification": "classification", "Symptoms": "symptoms", "Software Version": "softwareVersion",
        "Device": "device", "Sample Rate": "sampleRate", "Lead": "lead", "Unit": "unit",
    ]

    /// The largest CSV file read as an ECG: a 30-second one at 512 Hz is about 200 KB.
    static let largestFile = 64 << 20

    /// Emits the ECG that `bytes` (a whole CSV file; nil: one over `largestFile`) holds, or reports
    /// at `location` why it holds none. `phoneZone` (the source's `time_zone`) gives it that zone's
    /// offsets, as the export's other samples.
    static func emit(_ bytes: [UInt8]?, location: String, userId: String?, phoneZone: TimeZone?,
                     output: SourceOutput) throws {
        guard let bytes else {
            output.skipped("CSV file too large to be an ECG (over \(largestFile >> 20) MiB): not imported", location: location)
            return
        }
        switch sample(bytes, userId: userId) {
        case .success(var sample):
            var offsets = RecordedZoneOffsets(phoneZone: phoneZone)
            if offsets.applies(to: sample) { offsets.apply(to: &sample) }
            try output.emit([.sample(sample)])
        case .failure(let reason): output.skipped(reason.text, location: location)
        }
    }

    /// The sample the CSV `bytes` hold, or the reason (with its line) it holds none.
    static func sample(_ bytes: [UInt8], userId: String?) -> Result<Sample, GenericRecordSample.SkipReason> {
        var attributes: [GenericRecord.Attribute] = []
        var voltages = JSONWriter(capacity: bytes.count)
        voltages.beginArray()
        var voltageCount = 0
        var lineNumber = 0
        for line in lines(of: bytes) {
            lineNumber += 1
            let text = trimmed(line)
            if text.isEmpty { continue }
            if let voltage = number(text) {
                voltages.number(voltage)
                voltageCount += 1
                continue
            }
            guard voltageCount == 0 else {
                return .failure(.init("ECG CSV with an unreadable voltage (\(quoted(text))) at line \(lineNumber): not imported"))
            }
            var fields = fields(of: text)
            while fields.count > 1, fields.last?.isEmpty == true { fields.removeLast() }
            let label = fields[0]
            guard !label.isEmpty else { continue }
            let value = fields.dropFirst().joined(separator: ",")
            attributes.append(.init(attributeNames[label] ?? label, value))
        }
        voltages.endArray()
        let recorded = attributes.first { $0.name == "recordedDate" }?.instant ?? attributes.lazy.compactMap(\.instant).first
        guard let start = recorded else {
            if voltageCount == 0 && attributes.isEmpty { return .failure(.init("CSV file is empty: not imported")) }
            return .failure(.init(voltageCount == 0
                ? "CSV file in the export that is not an ECG (no recorded date, no voltages): not imported"
                : "ECG CSV without a readable recorded date (a header row like Recorded Date,2022-01-01 09:00:00 -0800): not imported"))
        }
        guard voltageCount > 0 else { return .failure(.init("ECG CSV without voltages: not imported")) }
        var end = start
        if let hertz = (attributes.first { $0.name == "sampleRate" } ?? attributes.first { hertzValue($0.value) != nil })
            .flatMap({ hertzValue($0.value) }), hertz > 0 {
            end = Timestamp(epochMilliseconds: start.epochMilliseconds + Int64((Double(voltageCount) / hertz * 1000).rounded()),
                            utcOffsetSeconds: start.utcOffsetSeconds)
        }
        let measurements = GenericRecord(element: "VoltageMeasurements",
                                         attributes: [.init("count", String(voltageCount)), .init("values", voltages.text)])
        let record = GenericRecord(element: "Electrocardiogram", attributes: attributes, children: [measurements])
        let value: (String) -> String? = { name in attributes.first { $0.name == name }?.value }
        return .success(Sample(id: GenericRecordSample.contentId(of: record), type: type, kind: .other, start: start, end: end,
                               sourceName: GenericRecordSample.exportSourceName,
                               sourceVersion: value("softwareVersion").flatMap { $0.isEmpty ? nil : $0 },
                               device: value("device").flatMap { $0.isEmpty ? nil : $0 },
                               userId: userId, detail: .record(record)))
    }

    /// The lines of `bytes` (UTF-8; a byte-order mark left out), ended by `\n`, `\r\n` or `\r`.
    private static func lines(of bytes: [UInt8]) -> [Substring] {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    }

    /// A voltage line's number: `-12.5`, `-12,5` (a decimal comma), `"12.5"`, `12.5,` (a trailing
    /// comma); nil for anything else.
    static func number(_ text: Substring) -> Double? {
        var text = text
        while text.last == "," { text.removeLast() }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        text = trimmed(text)
        guard let first = text.first, first.isASCII, first.isNumber || first == "-" || first == "+" || first == "." else { return nil }
        var normalized = String(text)
        if !normalized.contains("."), normalized.filter({ $0 == "," }).count == 1 {
            normalized = normalized.replacingOccurrences(of: ",", with: ".")
        }
        guard let value = Double(normalized), value.isFinite else { return nil }
        return value
    }

    /// The rate in a `Sample Rate` value (`512 hertz`, `512 Hz`, `512,0 Hertz`), or nil.
    static func hertzValue(_ value: String) -> Double? {
        let lowered = value.lowercased()
        guard let unit = lowered.range(of: "hertz") ?? lowered.range(of: "hz") else { return nil }
        return number(trimmed(lowered[..<unit.lowerBound]))
    }

    /// The fields of a CSV row: split at commas outside double quotes; a quoted field's `""` is a quote.
    static func fields(of row: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var index = row.startIndex
        while index < row.endIndex {
            let character = row[index]
            index = row.index(after: index)
            if quoted {
                if character == "\"" {
                    if index < row.endIndex, row[index] == "\"" {
                        field.append("\"")
                        index = row.index(after: index)
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "\"" && field.allSatisfy(\.isWhitespace) {
                field = ""
                quoted = true
            } else if character == "," {
                fields.append(field.trimmingCharacters(in: .whitespaces))
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field.trimmingCharacters(in: .whitespaces))
        return fields
    }

    private static func trimmed(_ text: Substring) -> Substring {
        Substring(text.trimmingCharacters(in: .whitespaces))
    }

    private static func quoted(_ text: Substring) -> String {
        text.count > 40 ? "\"\(text.prefix(40))…\"" : "\"\(text)\""
    }
}
