import Foundation
import HealthRouterCore

/// Where a command writes the errors a person must act on: standard error, as
/// `healthrouter: MESSAGE` with indented `  hint: …` lines, or, with `--log-format json`, as one
/// JSON object a line in the log's own shape (`time`, `level` `error`, `message`, then `hint` and
/// `exit_code`, a number, when there are), so that whatever reads the log as JSON meets no plain text.
/// When standard error is systemd's journal (`JOURNAL_STREAM`), where every line is an entry of
/// its own, the text is one line, `healthrouter: MESSAGE; hint: …`, as log lines give their hints.
struct ErrorOutput {
    var format: Logger.Format

    init(format: Logger.Format) {
        self.format = format
    }

    /// The format the raw command line asks for (`--log-format json`, `--log-format=json`), read
    /// before the line is parsed, so that a wrong command line is reported in it too; else text.
    init(arguments: [String]) {
        var format = Logger.Format.text
        for (index, word) in arguments.enumerated() {
            if word == "--" { break }
            if word == "--log-format", index + 1 < arguments.count {
                format = Logger.Format(rawValue: arguments[index + 1]) ?? format
            } else if word.hasPrefix("--log-format=") {
                format = Logger.Format(rawValue: String(word.dropFirst("--log-format=".count))) ?? format
            }
        }
        self.format = format
    }

    /// Writes `text`, an error's words as a person reads them: its first line is the message, the
    /// indented lines after it (`  hint: …`, `  see: …`) the hint. `exitCode` is the code the
    /// command exits with, when the error ends it.
    func write(_ text: String, exitCode: ExitCode? = nil) {
        switch format {
        case .text:
            StandardError.write("healthrouter: \(Self.standardErrorIsJournal ? text.asOneLine : text)\n")
        case .json:
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let message = lines.removeFirst()
            let hint = lines.map { line in
                let trimmed = line.drop { $0 == " " }
                return trimmed.hasPrefix("hint: ") ? String(trimmed.dropFirst("hint: ".count)) : String(trimmed)
            }.filter { !$0.isEmpty }.joined(separator: "; ")
            var fields: [(String, String)] = []
            if !hint.isEmpty { fields.append(("hint", hint)) }
            Logger(minimumLevel: .debug, format: .json).log(.error, message, fields,
                                                            numbers: exitCode.map { [("exit_code", LogNumber($0.rawValue))] } ?? [])
        }
    }

    /// Whether file descriptor 2 is the stream systemd connected to its journal: `JOURNAL_STREAM`
    /// (`DEVICE:INODE`, set for a service whose output goes there) names it. A program started
    /// from such a service with its standard error elsewhere (a file, a pipe) inherits the
    /// variable, so the descriptor itself is compared.
    static let standardErrorIsJournal: Bool = {
        guard let value = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }()

    /// Writes, with `--log-format json` only, the error line that ends a command whose failure its
    /// text output tells already (an import's summary, and its sinks' `gave up` log lines): whatever
    /// reads the JSON log finds the exit code on its last line. Nothing in the text format.
    func writeEnding(_ text: String, exitCode: ExitCode) {
        guard format == .json else { return }
        write(text, exitCode: exitCode)
    }
}
