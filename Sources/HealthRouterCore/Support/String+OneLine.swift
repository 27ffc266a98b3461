import Foundation

extension String {
    /// The text on one line: its lines (a message, then its `  hint: …`; libpq's failure, then
    /// "Is the server running on that host…?", or one line per host tried) trimmed and joined by
    /// "; ". A line-based log (journald) keeps it as one entry.
    public var asOneLine: String {
        guard contains(where: \.isNewline) else { return self }
        return split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }

    /// The text with each control character (a line break, a tab, NUL) as `?`, and with
    /// `lineSeparators` U+2028 and U+2029 as well: what a client or a server sent, shown where a
    /// line break would forge a line (a log, `status`).
    public func controlCharactersAsQuestionMarks(lineSeparators: Bool = false) -> String {
        let replaced: Set<Unicode.GeneralCategory> = lineSeparators ? [.control, .lineSeparator, .paragraphSeparator] : [.control]
        return String(String.UnicodeScalarView(unicodeScalars.map { replaced.contains($0.properties.generalCategory) ? "?" : $0 }))
    }
}
