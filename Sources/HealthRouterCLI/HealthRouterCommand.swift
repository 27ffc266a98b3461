import Foundation
import HealthRouterCore

/// The `healthrouter` command line: parses the arguments and runs one command.
public enum HealthRouterCommand {
    static let overview = """
        healthrouter — moves your health data from where it is produced to stores you control.

        usage: healthrouter <command> [options]

        commands:
          import [PATH…] read Apple Health exports (export.zip / export.xml), Health Auto
                         Export's JSON files or NDJSON (a file or folder: ndjson sink, Pulso's
                         server, dump) into the journal and deliver them to every sink
                         (no PATH: the config's file sources)
          run            the daemon: serve the push sources (http_push) and keep every sink
                         caught up until SIGTERM/SIGINT
          status         per sink: cursor, lag, rows written, dead letters, last error
                         (--format json or prometheus, for a monitor)
          backfill SINK  write again to one sink only: from the journal, or a file (--from PATH)
          migrate --from SINK --to SINK [--verify | --verify-only]
                         copy one store into another, resumably; --verify compares both sides
                         after, --verify-only instead of copying
          dump           the journal's entries (or a sink's rows, --from SINK) as NDJSON
          check          validate the config without touching anything (--connect: probe each sink)
          types          the type registry: HealthKit identifiers, short keys, groups, units

        options for every command:
          --config FILE        the config (default: ./healthrouter.yaml when it exists, else the
                               embedded default: SQLite + NDJSON under ./healthrouter-data/)
          --log-format text|json   log lines for people (text) or one JSON object a line
                               (json: an error that ends the command too, with its hint and exit_code)
          --log-level debug|info|warning|error
          -q, --quiet          no progress line
          -h, --help           help for a command: healthrouter import --help

        without a command:
          --version            the version of healthrouter

        first steps:
          healthrouter import ~/Downloads/export.zip
          sqlite3 healthrouter-data/health.sqlite 'SELECT type, count(*) FROM samples GROUP BY type'
        """

    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    public static func main(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let commandIndex = commandWordIndex(arguments)
        guard let commandIndex else {
            if arguments.contains("--version") {
                print("healthrouter \(version)")
                return ExitCode.success.rawValue
            }
            print(overview)
            return arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h")
                ? ExitCode.success.rawValue : ExitCode.usage.rawValue
        }
        var rest = arguments
        let command = rest.remove(at: commandIndex)
        do {
            let code: ExitCode
            switch command {
            case "import": code = try ImportCommand.run(rest, environment: environment)
            case "run": code = try RunCommand.run(rest, environment: environment)
            case "status": code = try StatusCommand.run(rest, environment: environment)
            case "check": code = try CheckCommand.run(rest, environment: environment)
            case "types": code = try TypesCommand.run(rest, environment: environment)
            case "dump": code = try DumpCommand.run(rest, environment: environment)
            case "backfill": code = try BackfillCommand.run(rest, environment: environment)
            case "migrate": code = try MigrateCommand.run(rest, environment: environment)
            case "help":
                if let topic = rest.first { return main([topic, "--help"], environment: environment) }
                print(overview)
                code = .success
            default:
                var message = "unknown command '\(command)'"
                if let guess = NameSuggester.closest(to: command, among: ["import", "run", "status", "check", "types", "dump", "backfill", "migrate", "help"]) {
                    message += " (did you mean '\(guess)'?)"
                }
                throw UsageError(message, command: nil)
            }
            // Their result is what they print: one that did not reach its reader is a failure.
            if ["status", "types", "check"].contains(command) { try StandardOutput.flush() }
            return code.rawValue
        } catch {
            return report(error, to: ErrorOutput(arguments: arguments)).rawValue
        }
    }

    static let version = "0.1.0"

    /// Refuses an argument that is not UTF-8 (a file named in Latin-1), which reaches Swift with its
    /// bad bytes replaced, so that the file would be called missing: the message says what it is,
    /// in the log format the command line asks for. `argument` is the first such (its position,
    /// counting the program as 0, and its text as Swift has it); returns the exit code (64).
    public static func refuseNonUTF8(argument: (position: Int, shown: String), arguments: [String]) -> Int32 {
        ErrorOutput(arguments: arguments).write(
            "argument \(argument.position) (\(argument.shown)) is not valid UTF-8, which healthrouter cannot read\n"
                + "  hint: a file name in another encoding? rename it to a UTF-8 name (convmv -f latin1 -t utf-8 --notest FILE), "
                + "or give a symbolic link with one", exitCode: .usage)
        return ExitCode.usage.rawValue
    }

    /// The command `arguments` (without the program name) name (`run`), nil when none.
    public static func commandName(_ arguments: [String]) -> String? {
        commandWordIndex(arguments).map { arguments[$0] }
    }

    /// The index of the first word that is not an option or an option's value.
    private static func commandWordIndex(_ arguments: [String]) -> Int? {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if CommandLineArguments.globalValues.contains(word) {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            return index
        }
        return nil
    }

    /// Writes `error` to `output` as one or two lines a person can act on (one JSON object with
    /// `--log-format json`), and picks the exit code.
    static func report(_ error: any Error, to output: ErrorOutput) -> ExitCode {
        let text: String, code: ExitCode
        switch error {
        case let error as UsageError:
            (text, code) = ("\(error)", .usage)
        case let error as ConfigError:
            (text, code) = ("config error: \(error)", .config)
        case let error as CommandFailure:
            (text, code) = (error.message + (error.hint.map { "\n  hint: \($0)" } ?? ""), error.code)
        default:
            (text, code) = ("\(error)", .incomplete)
        }
        output.write(text, exitCode: code)
        return code
    }
}

/// A failure a command reports with its own exit code and hint.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var hint: String?
    var code: ExitCode

    /// The message and its hint on one line, for logs (the command line prints them on two).
    var description: String { hint.map { "\(message) (hint: \($0))" } ?? message }
}
