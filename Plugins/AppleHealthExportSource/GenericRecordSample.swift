import HealthRouterCore

/// Turns a top-level element kept whole into a sample:
///
/// - `ActivitySummary` → kind `.activitySummary`, type `ActivitySummary`, from 00:00 UTC of
///   its `dateComponents` day to 00:00 UTC the next day (offset 0): a calendar day, the same
///   instants in every export (the export's own offset changes with daylight saving); its id
///   is one a day and user (`activitySummaryId`), so a later export's other totals for a day,
///   the export day's above all, are a change of that day's summary, not a second one.
/// - `Me` → kind `.profile`, type `Me`, at the export date.
/// - anything else → kind `.other`, type = its `type` attribute or element name, at its
///   first date attribute (`startDate`, `date`, `receivedDate`, `dateIssued`,
///   `creationDate`) or the export date.
///
/// `Me` and `.other` records get a content id: the UUIDv5 of the whole element, since
/// the fingerprint (type, source, times) does not tell them apart (many ClinicalRecords
/// share one `receivedDate`). Every one has `detail = .record(element)`.
enum GenericRecordSample {
    /// The source name of items the export does not attribute to an app or device.
    static let exportSourceName = "Health"

    /// The sample for `record`, or the reason it cannot be one.
    static func sample(for record: GenericRecord, exportDate: Timestamp?, exportOffset: Int32?,
                       userId: String?) -> Result<Sample, SkipReason> {
        let fallbackTime = exportDate ?? Timestamp(epochMilliseconds: 0, utcOffsetSeconds: exportOffset)
        switch record.element {
        case "ActivitySummary":
            guard let day = record[attribute: "dateComponents"], let start = startOfDay(day, offset: 0) else {
                return .failure(SkipReason("ActivitySummary without a valid dateComponents"))
            }
            let end = Timestamp(epochMilliseconds: start.epochMilliseconds + 86_400_000,
                                utcOffsetSeconds: start.utcOffsetSeconds)
            // 9999-12-31 would end in the year 10000, which no store holds.
            guard HealthDateParser.instants.contains(end.epochMilliseconds) else {
                return .failure(SkipReason("ActivitySummary without a valid dateComponents"))
            }
            return .success(Sample(id: activitySummaryId(day: start, userId: userId), type: "ActivitySummary",
                                   kind: .activitySummary, start: start, end: end,
                                   sourceName: exportSourceName, userId: userId, detail: .record(record)))
        case "Me":
            // An export of iOS 8 or 9 wrote numbers (`BiologicalSex="2"`): as later exports' names.
            let profile = LegacyExportValues.profile(record)
            return .success(Sample(id: contentId(of: profile), type: TypeRegistry.profileType, kind: .profile, start: fallbackTime,
                                   end: fallbackTime, sourceName: exportSourceName, userId: userId,
                                   detail: .record(profile)))
        default:
            let start = firstDate(of: record, among: ["startDate", "date", "receivedDate", "dateIssued", "creationDate"])
                ?? fallbackTime
            let end = firstDate(of: record, among: ["endDate", "expirationDate"]) ?? start
            let type = record[attribute: "type"] ?? record.element
            return .success(Sample(id: contentId(of: record), type: type, kind: .other, start: start, end: end,
                                   sourceName: record[attribute: "sourceName"] ?? exportSourceName,
                                   sourceVersion: record[attribute: "sourceVersion"],
                                   device: record[attribute: "device"],
                                   createdAt: record[attribute: "creationDate"].flatMap { HealthDateParser.parse($0) },
                                   userId: userId, detail: .record(record)))
        }
    }

    /// The id of the activity summary of the day starting at `day` (00:00 UTC) for `userId`: the
    /// UUIDv5 of `ActivitySummary`, the day's start in seconds since 1970 and the user (empty
    /// when none), separated by U+001F. healthrouter before it gave a summary the fingerprint id
    /// of every attribute, which the journal still recognises (`Journal.isStoredUnderFormerId`).
    static func activitySummaryId(day: Timestamp, userId: String?) -> String {
        UUIDv5.string(name: "ActivitySummary\u{1F}\(day.epochMilliseconds / 1000)\u{1F}\(userId ?? "")")
    }

    struct SkipReason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    /// 00:00 of `day` (`2023-01-31`, years 1 to 9999) at UTC offset `offset` seconds.
    static func startOfDay(_ day: String, offset: Int32) -> Timestamp? {
        let parts = day.split(separator: "-")
        guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2]),
              (1...9999).contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(dayOfMonth) else { return nil }
        let days = HealthDateParser.daysFromCivil(year: year, month: month, day: dayOfMonth)
        let seconds = Int64(days) * 86_400 - Int64(offset)
        return Timestamp(epochSeconds: seconds, utcOffsetSeconds: offset)
    }

    /// The days of `month` (1–12) in `year` of the Gregorian calendar.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func firstDate(of record: GenericRecord, among names: [String]) -> Timestamp? {
        for name in names {
            if let text = record[attribute: name], let date = HealthDateParser.parse(text) { return date }
        }
        return nil
    }

    /// The UUIDv5 of the element's whole content (names, attributes, children, in order), a date
    /// attribute as its instant (epoch milliseconds): the export writes every date with the phone's
    /// offset of the export day, which a daylight-saving change between two exports changes.
    static func contentId(of record: GenericRecord) -> String {
        var text = ""
        append(record, to: &text)
        return UUIDv5.string(name: text)
    }

    private static func append(_ record: GenericRecord, to text: inout String) {
        text += "<"
        text += record.element
        for attribute in record.attributes {
            text += "\u{1F}"
            text += attribute.name
            text += "="
            if let instant = attribute.instant {
                text += "@" + String(instant.epochMilliseconds)
            } else {
                text += attribute.value
            }
        }
        for child in record.children {
            append(child, to: &text)
        }
        text += ">"
    }
}
