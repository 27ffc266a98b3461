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
}
