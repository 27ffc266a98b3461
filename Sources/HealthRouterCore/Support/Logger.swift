import Foundation

/// Structured logging to standard error: `text` for people, `json` (one object a
/// line) for log shippers. Passed in, never made globally.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    public enum Format: String, Sendable { case text, json }

    public var minimumLevel: Level
    public var format: Format
    /// Extra fields every line carries (`sink=local`).
    public var fields: [(String, String)] = []

    public init(minimumLevel: Level = .info, format: Format = .text) {
        self.minimumLevel = minimumLevel
        self.format = format
    }

    /// A logger whose lines also carry `key=value`.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.fields.append((key, value))
        return copy
    }

    public func debug(_ message: @autoclosure () -> String, _ extra: [(String, String)] = [], numbers: [(String, LogNumber)] = []) {
        if minimumLevel <= .debug { log(.debug, message(), extra, numbers: numbers) }
    }
    public func info(_ message: @autoclosure () -> String, _ extra: [(String, String)] = [], numbers: [(String, LogNumber)] = []) {
        if minimumLevel <= .info { log(.info, message(), extra, numbers: numbers) }
    }
    public func warning(_ message: @autoclosure () -> String, _ extra: [(String, String)] = [], numbers: [(String, LogNumber)] = []) {
        if minimumLevel <= .warning { log(.warning, message(), extra, numbers: numbers) }
    }
    public func error(_ message: @autoclosure () -> String, _ extra: [(String, String)] = [], numbers: [(String, LogNumber)] = []) {
        log(.error, message(), extra, numbers: numbers)
    }

    /// Writes one line. `numbers` are fields whose values are counts, codes or seconds: a JSON log
    /// writes them as numbers (`"exit_code":65`), the text log as the other fields, after them.
    public func log(_ level: Level, _ message: String, _ extra: [(String, String)] = [], numbers: [(String, LogNumber)] = []) {
        guard level >= minimumLevel else { return }
        StandardError.write(line(level, message, extra, numbers: numbers) + "\n")
    }

    /// The line `log` writes, without its newline. In the text format a message or value of several
    /// lines (an error with its `  hint: …` line) is folded into one (`String.asOneLine`), so
    /// that journald and every line-based shipper keep it as one entry.
    func line(_ level: Level, _ message: String, _ extra: [(String, String)] = [], numbers: [(String, LogNumber)] = []) -> String {
        let all = fields + extra
        var line: String
        switch format {
        case .text:
            line = "\(level.name): \(message.asOneLine)"
            for (key, value) in all { line += " \(key)=\(value.asOneLine)" }
            for (key, value) in numbers { line += " \(key)=\(value)" }
        case .json:
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("time"); writer.string(Date().formatted(.iso8601))
            writer.key("level"); writer.string(level.name)
            writer.key("message"); writer.string(message)
            for (key, value) in all { writer.key(key); writer.string(value) }
            for (key, value) in numbers { writer.key(key); writer.raw(Array(value.description.utf8)) }
            writer.endObject()
            line = writer.text
        }
        return line
    }
}
