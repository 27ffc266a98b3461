import Foundation
import HealthRouterCore

/// An Apple Watch ECG as an export writes it (`electrocardiograms/ecg_2022-01-01.csv`): header rows
/// `label,value` (`Name`, `Date of Birth`, `Recorded Date` as `2022-01-01 09:00:00 -0800`,
/// `Classification`, `Symptoms`, `Software Version`, `Device`, `Sample Rate` as `512 hertz`; the
/// labels are localized on other phones), blank rows, `Lead,Lead I`, `Unit,µV`, then one voltage a
/// line (the locale's decimal separator, sometimes a trailing comma).
///
/// It becomes one sample of kind `.other` and type `HKDataTypeIdentifierElectrocardiogram`, kept
/// whole as an `Electrocardiogram` record: every header row an attribute in file order, named as
/// `attributeNames` says (a localized file's rows by their place, when they stand as Apple writes
/// them: a date with a time third, a number eighth; else as written), and one
/// `VoltageMeasurements` child whose `values` attribute is the voltages as a JSON array of numbers
/// (`[-3.95,12.5]`, what SQLite's `json_each` reads) and `count` their number. It starts at the
/// recorded date and lasts as long as its voltages at the sample rate (no rate: no length). Its id
/// is the UUIDv5 of its type, its instant and its voltages: the same ECG in every export, whatever
/// its file's name, the phone's language or the profile's name there.
enum ElectrocardiogramCSV {
    static let type = "HKDataTypeIdentifierElectrocardiogram"

    /// The header labels of an English export and the attribute names they become.
    static let attributeNames: [String: String] = [
        "Name": "name", "Date of Birth": "dateOfBirth", "Recorded Date": "recordedDate",
        "Classification": "classification", "Symptoms": "symptoms", "Software Version": "softwareVersion",
        "Device": "device", "Sample Rate": "sampleRate", "Lead": "lead", "Unit": "unit",
    ]

    /// The attribute names of the header rows by their place, for a localized file: the eight rows
    /// before the first blank one, then the two after it.
    static let namesByPlace = ["name", "dateOfBirth", "recordedDate", "classification", "symptoms", "softwareVersion",
                               "device", "sampleRate", "lead", "unit"]

    /// The largest CSV file read as an ECG: a 30-second one at 512 Hz is about 200 KB.
    static let largestFile = 4 << 20

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
        case .failure(let reason):
            output.skipped(reason.text, location: location)
        }
    }

    /// A header row as read: its label, its value, and whether a blank line came before it.
    private struct HeaderRow {
        var label: String
        var value: String
        var afterBlank: Bool
    }

    /// The sample the CSV `bytes` hold, or the reason (with its line) it holds none.
    static func sample(_ bytes: [UInt8], userId: String?) -> Result<Sample, GenericRecordSample.SkipReason> {
        if bytes.contains(0) {
            return .failure(.init("CSV file with NUL bytes (not a text file): not imported"))
        }
        var rows: [HeaderRow] = []
        var voltages = JSONWriter(capacity: bytes.count)
        voltages.beginArray()
        var voltageCount = 0
        var lineNumber = 0
        var sawBlank = false
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? bytes.count
            let line = trimmed(Substring(String(decoding: bytes[start..<end], as: UTF8.self)))
            // A CRLF is one line end.
            start = end + (end + 1 < bytes.count && bytes[end] == 0x0D && bytes[end + 1] == 0x0A ? 2 : 1)
            lineNumber += 1
            if line.isEmpty {
                sawBlank = sawBlank || !rows.isEmpty
                continue
            }
            if let voltage = number(line) {
                voltages.number(voltage)
                voltageCount += 1
                continue
            }
            guard voltageCount == 0 else {
                return .failure(.init("ECG CSV with an unreadable voltage (\(quoted(line))) at line \(lineNumber): not imported"))
            }
            var fields = fields(of: line)
            while fields.count > 1, fields.last?.isEmpty == true { fields.removeLast() }
            guard !fields[0].isEmpty else { continue }
            rows.append(HeaderRow(label: fields[0], value: fields.dropFirst().joined(separator: ","), afterBlank: sawBlank))
        }
        voltages.endArray()
        let attributes = named(rows)
        let value: (String) -> String? = { name in attributes.first { $0.name == name }?.value }
        guard let start = value("recordedDate").flatMap({ GenericRecord.Attribute("", $0).instant })
                ?? attributes.lazy.compactMap(\.instant).first else {
            if voltageCount == 0 && attributes.isEmpty { return .failure(.init("CSV file is empty: not imported")) }
            return .failure(.init(voltageCount == 0
                ? "CSV file in the export that is not an ECG (no recorded date, no voltages): not imported"
                : "ECG CSV without a readable recorded date (a header row like Recorded Date,2022-01-01 09:00:00 -0800): not imported"))
        }
        guard voltageCount > 0 else { return .failure(.init("ECG CSV without voltages: not imported")) }
        var end = start
        let rate = value("sampleRate").flatMap(leadingNumber) ?? attributes.lazy.compactMap { hertzValue($0.value) }.first
        // A recording of up to a day (Apple's are 30 s at 512 Hz): a rate that makes it longer, or
        // none, leaves the end at the start.
        if let rate, rate > 0, case let milliseconds = (Double(voltageCount) / rate * 1000).rounded(),
           milliseconds.isFinite, milliseconds <= 86_400_000,
           HealthDateParser.instants.contains(start.epochMilliseconds + Int64(milliseconds)) {
            end = Timestamp(epochMilliseconds: start.epochMilliseconds + Int64(milliseconds), utcOffsetSeconds: start.utcOffsetSeconds)
        }
        let values = voltages.text
        let measurements = GenericRecord(element: "VoltageMeasurements",
                                         attributes: [.init("count", String(voltageCount)), .init("values", values)])
        let record = GenericRecord(element: "Electrocardiogram", attributes: attributes, children: [measurements])
        let id = UUIDv5.string(name: type + "\u{1F}" + String(start.epochMilliseconds) + "\u{1F}" + values)
        return .success(Sample(id: id, type: type, kind: .other, start: start, end: end,
                               sourceName: GenericRecordSample.exportSourceName,
                               sourceVersion: value("softwareVersion").flatMap { $0.isEmpty ? nil : $0 },
                               device: value("device").flatMap { $0.isEmpty ? nil : $0 },
                               userId: userId, detail: .record(record)))
    }

    /// The header rows as attributes: by `attributeNames` in an English file (a `Recorded Date`
    /// row); else by their place (`namesByPlace`) when they stand as Apple writes them; else as
    /// written.
    private static func named(_ rows: [HeaderRow]) -> [GenericRecord.Attribute] {
        if rows.contains(where: { $0.label == "Recorded Date" }) {
            return rows.map { .init(attributeNames[$0.label] ?? $0.label, $0.value) }
        }
        let first = rows.prefix { !$0.afterBlank }
        let rest = rows.dropFirst(first.count)
        guard first.count == 8, rest.count <= 2, GenericRecord.Attribute("", first[first.startIndex + 2].value).instant != nil,
              leadingNumber(first[first.startIndex + 7].value) != nil else {
            return rows.map { .init($0.label, $0.value) }
        }
        return rows.enumerated().map { .init(namesByPlace[$0.offset], $0.element.value) }
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

    /// The number a `Sample Rate` value starts with (`512 hertz`, `512,0 Hertz`, `512ヘルツ`), or nil.
    static func leadingNumber(_ value: String) -> Double? {
        let digits = value.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == ",") }
        return digits.isEmpty ? nil : number(digits)
    }

    /// The rate in a value that says hertz (`512 hertz`, `512 Hz`), or nil.
    static func hertzValue(_ value: String) -> Double? {
        let lowered = value.lowercased()
        guard lowered.contains("hertz") || lowered.contains("hz") else { return nil }
        return leadingNumber(value)
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
