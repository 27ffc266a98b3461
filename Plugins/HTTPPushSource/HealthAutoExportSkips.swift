import Foundation
import HealthRouterCore
/// Why `HealthAutoExportParser` skipped data points and workouts of a `/hae` body, for the log:
/// a user who sees `"received": 0` learns which point and which date it could not read.
enum HealthAutoExportSkips {
    /// The first `limit` points and workouts of `body` the parser skips, each as
    /// `heart_rate point #3: date '13/07/2026 08:00' cannot be read`. Walks the body again
    /// (only when something was skipped), asking the parser's own readers.
    static func examples(_ body: [UInt8], limit: Int) -> [String] {
        // Element by element, as the parser reads them (see `HealthAutoExportParser.parse`).
        guard let root = JSONValues.tree(body), let (data, prefix) = try? HealthAutoExportParser.sections(root) else { return [] }
        var examples: [String] = []
        for (name, entries) in HealthAutoExportParser.recordSections(of: data) {
            for (index, entry) in entries.enumerated() where examples.count < limit
            && HealthAutoExportRecord.read(entry, section: name, userId: nil) == nil {
                examples.append("\(prefix)\(name) #\(index): \(HealthAutoExportRecord.problem(entry))")
            }
        }
        for (metricIndex, metricValue) in (JSONValues.entries(data["metrics"]) ?? []).enumerated()
        where examples.count < limit {
            guard let metric = JSONValues.foundationObject(metricValue, skipping: "data") else {
                examples.append("metric #\(metricIndex): not a JSON object")
                continue
            }
            let data = metricValue["data"]
            guard let name = metric["name"] as? String, !name.isEmpty else {
                let points = JSONValues.entries(data)?.count ?? 0
                examples.append("metric #\(metricIndex): no name (a metric's name is its type): its \(points) "
                                + "\(points == 1 ? "point" : "points") not stored")
                continue
            }
            // The client's name as the log shows client text (clipped, not the 200 characters it sent).
            let shown = SkippedElement.clipped(name)
            if let data, data != .null, JSONValues.entries(data) == nil {
                examples.append("metric #\(metricIndex) (\(shown)): data is not an array")
                continue
            }
            for (index, pointValue) in (JSONValues.entries(data) ?? []).enumerated() where examples.count < limit {
                guard let point = JSONValues.foundationValue(pointValue) as? [String: Any] else {
                    examples.append("\(shown) point #\(index): not a JSON object")
                    continue
                }
                if name == "sleep_analysis" {
                    var scratch = HealthAutoExportParser.Payload()
                    HealthAutoExportParser.readSleep(point, source: "", userId: nil, into: &scratch)
                    if scratch.items.isEmpty {
                        examples.append("\(shown) point #\(index): \(sleepProblem(point))")
                    }
                } else if HealthAutoExportParser.interval(point) == nil {
                    examples.append("\(shown) point #\(index): \(dates(point, ["date", "startDate", "endDate"]))")
                } else if let problem = HealthAutoExportParser.valueProblem(point, metric: name) {
                    examples.append("\(shown) point #\(index): \(problem)")
                } else if let field = outOfRange(pointValue, of: metricValue) {
                    examples.append("\(shown) point #\(index): a \(field) out of a double's range once converted to its canonical unit")
                }
            }
        }
        for (index, workout) in (JSONValues.entries(data["workouts"]) ?? []).enumerated()
        where examples.count < limit {
            guard let object = JSONValues.foundationValue(workout) as? [String: Any] else {
                examples.append("workout #\(index): not a JSON object")
                continue
            }
            guard let sample = HealthAutoExportParser.readWorkout(object, userId: nil) else {
                examples.append("workout #\(index): \(dates(object, ["start", "end"]))")
                continue
            }
            if let field = sample.fieldOutOfRange {
                examples.append("workout #\(index): a \(field) out of a double's range once converted to its canonical unit")
            }
        }
        return examples
    }

    /// The field of the sample `point` gives, read as the only point of `metric` (its name and units),
    /// that is out of a double's range once converted to its canonical unit (`1e308` kg is a value of
    /// infinite grams), which the parser leaves out; nil when there is none.
    private static func outOfRange(_ point: JSONValue, of metric: JSONValue) -> String? {
        guard case .object(let pairs) = metric else { return nil }
        var scratch = HealthAutoExportParser.Payload()
        HealthAutoExportParser.readMetric(.object(pairs.filter { $0.key != "data" } + [(key: "data", value: .array([point]))]),
                                          userId: nil, atDates: [:], into: &scratch)
        return scratch.items.lazy.compactMap { if case .sample(let sample) = $0 { sample.fieldOutOfRange } else { nil } }.first
    }

    /// `date '…'` (the date fields `point` has, quoted) followed by what is wrong with them.
    /// Why a sleep point gave no sample: it has no times (a night's `date` alone places nothing),
    /// or they cannot be read.
    private static func sleepProblem(_ point: [String: Any]) -> String {
        let times = ["startDate", "endDate", "sleepStart", "sleepEnd", "inBedStart", "inBedEnd"]
        guard times.contains(where: { point[$0] is String }) else {
            return ((point["date"] as? String).map { "date \(SkippedElement.quoted($0)) but " } ?? "")
                + "no times: a night needs sleepStart and sleepEnd (or inBedStart and inBedEnd), a stage startDate and endDate"
        }
        return dates(point, ["date"] + times)
    }

    private static func dates(_ point: [String: Any], _ keys: [String]) -> String {
        let present = keys.compactMap { key in (point[key] as? String).map { "\(key) \(SkippedElement.quoted($0))" } }
        guard !present.isEmpty else { return "no date (\(keys.prefix(3).joined(separator: ", ")) missing or not strings)" }
        return present.joined(separator: ", ") + ": cannot be read as dates, or the end is before the start"
    }
}
