/// An element of a push body that was skipped, and why, for the log: the phone is answered 200
/// (or it would send the batch again forever), so the log is where a person learns of it.
struct SkippedElement: Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with an element: the field at fault and why.
    struct Problem: Error, Sendable, Equatable {
        /// `uuid`, `type`, `start`, `end`, `value`, or `element` for one that is not an object.
        var field: String
        var reason: String
    }

    /// The element's position in the body, from 0 (its line, from 0, in NDJSON).
    var index: Int
    /// Its `uuid`, when it has a usable one.
    var uuid: String?
    var problem: Problem

    /// `#3 uuid=ABC start: '2026-13-01' cannot be read as a date`.
    var description: String {
        "#\(index)" + (uuid.map { " uuid=\(Self.clipped($0))" } ?? "") + " \(problem.field): \(problem.reason)"
    }

    /// A client's text as a log shows it, quoted (see `clipped`).
    static func quoted(_ text: String) -> String {
        "'" + clipped(text) + "'"
    }

    /// A client's text as a log shows it: at most `limit` characters, control characters (a
    /// line break that would forge a log line) as `?`.
    static func clipped(_ text: String, limit: Int = 40) -> String {
        let shown = text.count > limit ? text.prefix(limit - 1) + "…" : Substring(text)
        return String(shown).controlCharactersAsQuestionMarks()
    }
}
