import HealthRouterCore

/// Where a command writes the lines beside its result that do not end it (a note, a warning, a
/// retry, `dump`'s summary): standard error, each as the one line of text it passes, or, with
/// `--log-format json`, as one JSON object a line in the log's shape (`time`, `level`, `message`,
/// then its fields), so that whatever reads the log as JSON meets no plain text. Written whatever
/// `--log-level` says, as the text is. The errors that end a command go to `ErrorOutput`.
struct NoticeOutput {
    var format: Logger.Format

    init(format: Logger.Format) {
        self.format = format
    }

    /// The format `--log-format` asks for, for a line written before the config (and its logger)
    /// is loaded; text when it is missing or wrong (the command refuses a wrong one then).
    init(arguments: CommandLineArguments) {
        format = arguments.values["--log-format"].flatMap(Logger.Format.init(rawValue:)) ?? .text
    }

    /// Writes `text`, one line without its newline: as it is in the text format; in JSON with the
    /// `level` given, its `healthrouter: ` and `note: ` or `warning: ` prefixes left to the level,
    /// and `fields`, `numbers` (counts, written as numbers) after the message.
    func write(_ text: String, level: Logger.Level = .info, _ fields: [(String, String)] = [],
               numbers: [(String, LogNumber)] = []) {
        switch format {
        case .text:
            StandardError.write(text + "\n")
        case .json:
            var message = Substring(text)
            for prefix in ["healthrouter: ", "note: ", "warning: "] where message.hasPrefix(prefix) {
                message = message.dropFirst(prefix.count)
            }
            Logger(minimumLevel: .debug, format: .json).log(level, String(message), fields, numbers: numbers)
        }
    }
}
