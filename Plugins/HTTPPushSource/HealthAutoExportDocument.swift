import Foundation
import HealthRouterCore

/// One Health Auto Export JSON document (a `/hae` body, or a file Health Auto Export wrote with
/// "Export → JSON" or an automation) read exactly as `/hae` reads its body, by
/// `HealthAutoExportParser`: the one entry point for other readers of that format (the
/// `health_auto_export` file source), so that a file and a push of the same bytes for the same
/// user give the same samples with the same ids.
public struct HealthAutoExportDocument {
    /// The most bytes a document may have: what `/hae` takes in one body (64 MiB), as a document
    /// is parsed whole.
    public static let maximumBytes = HTTPPushSource.bodyLimit

    /// Why a document cannot be read.
    public enum Failure: Error, Sendable, Equatable {
        /// Not JSON: where it stops being JSON (`line 3, column 18 (byte 41)`) and why.
        case notJSON(place: String, problem: String)
        /// JSON, but not a Health Auto Export document (what `/hae` answers for it).
        case notHealthAutoExport(String)
    }

    /// The samples and records, as `/hae` journals them (fingerprint ids, canonical units).
    public var items: [HealthItem]
    /// Each data point, workout or entry left out: where it is (`heart_rate point #3`) and why,
    /// its client values left out of the reason (`date: cannot be read as dates, …`), so that
    /// points left out for one reason count together. As many as `/hae`'s reply counts in `skipped`.
    public var skipped: [(place: String, reason: String)]

    /// Reads `bytes` (a UTF-8 byte-order mark allowed) for `userId`, as `/hae` reads a body a
    /// token of that user pushed.
    public static func read(_ bytes: [UInt8], userId: String?) throws(Failure) -> HealthAutoExportDocument {
        let payload: HealthAutoExportParser.Payload
        do {
            payload = try HealthAutoExportParser.parse(bytes, userId: userId)
        } catch {
            switch error {
            case .badJSON: throw notJSON(bytes)
            case .notObject:
                throw .notHealthAutoExport("not a JSON object: Health Auto Export writes {\"data\": {\"metrics\": […], \"workouts\": […]}}")
            case .notHealthAutoExport(let problem): throw .notHealthAutoExport(problem)
            }
        }
        var skipped: [(place: String, reason: String)] = []
        if payload.skipped > 0 {
            for example in HealthAutoExportSkips.examples(bytes, limit: payload.skipped) {
                skipped.append(placeAndReason(example))
            }
            // A metric without a name is one example for its every point; a point left out for a
            // reason the examples do not name is counted all the same.
            for _ in skipped.count..<max(skipped.count, payload.skipped) {
                skipped.append((place: "", reason: "a data point, workout or entry Health Auto Export's reader could not use"))
            }
        }
        return HealthAutoExportDocument(items: payload.items, skipped: skipped)
    }

    /// `heart_rate point #3: date '13/07/2026 08:00': cannot be read …` as its place
    /// (`heart_rate point #3`) and a reason without the client's values or the index
    /// (`heart_rate point: date: cannot be read …`).
    static func placeAndReason(_ example: String) -> (place: String, reason: String) {
        guard let match = example.firstMatch(of: /^(.*? #\d+(?: \([^)]*\))?): (.*)$/) else { return ("", example) }
        let place = String(match.1), problem = String(match.2)
        let kind = place.replacing(/\ #\d+/, with: "")
        // `SkippedElement.quoted` values (`'13/07/2026 08:00'`) after a field's name.
        let reason = problem.replacing(/\ '[^']*'/, with: "")
        return (place, "\(kind): \(reason)")
    }

    /// Where `bytes` stop being JSON, by `JSONParser` (strict, as the body was read).
    private static func notJSON(_ bytes: [UInt8]) -> Failure {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        do {
            _ = try JSONParser.parse(body, strict: true)
        } catch let failure as JSONParser.Failure {
            let before = body.prefix(failure.offset)
            let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? body.startIndex
            let column = before.distance(from: lineStart, to: before.endIndex) + 1
            let place = "line \(line), column \(column) (byte \(failure.offset + 1))"
            // (`JSONParser` reads NDJSON lines too, so its end of the input is "the line"'s.)
            let ended = failure.offset >= body.count
            return .notJSON(place: place, problem: ended ? "the file ends before its JSON does" : failure.problem)
        } catch {
            return .notJSON(place: "", problem: "\(error)")
        }
        return .notJSON(place: "", problem: "JSON that is not read (an unpaired \\u surrogate escape, or bytes that are not UTF-8)")
    }
}
