import HealthRouterCore

/// The words of one command line: the command, its positional arguments, and its
/// `--options`, which may stand anywhere on the line (`import x.zip --config f.yaml`).
struct CommandLineArguments {
    var command: String?
    var positional: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// Options that take a value, and flags, accepted by any command.
    static let globalValues: Set<String> = ["--config", "--log-format", "--log-level"]
    static let globalFlags: Set<String> = ["--help", "--quiet"]

    /// Each command's options besides the global ones: those that take a value, and flags.
    static let commandOptions: [(command: String, values: Set<String>, flags: Set<String>)] = [
        ("import", ["--time-zone"], []),
        ("run", [], []),
        ("status", ["--format"], ["--dead-letters"]),
        ("backfill", FilterOptions.values.union(["--from", "--batch-size"]), ["--restart"]),
        ("migrate", FilterOptions.values.union(["--from", "--to", "--batch-size"]), ["--verify", "--verify-only", "--restart"]),
        ("dump", FilterOptions.values.union(["--from", "--output"]), []),
        ("check", [], ["--connect"]),
        ("types", ["--group"], []),
    ]

    /// Parses `words` for `command`, which accepts its `commandOptions` besides the global ones.
    static func parse(_ words: [String], command: String) throws -> CommandLineArguments {
        let own = commandOptions.first { $0.command == command }
        var result = CommandLineArguments(command: command)
        let allValues = (own?.values ?? []).union(globalValues)
        let allFlags = (own?.flags ?? []).union(globalFlags)
        var index = 0
        while index < words.count {
            var word = words[index]
            index += 1
            if word == "-h" { word = "--help" }
            if word == "-q" { word = "--quiet" }
            if word == "--" {
                result.positional.append(contentsOf: words[index...])
                break
            }
            guard word.hasPrefix("--") else {
                result.positional.append(word)
                continue
            }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if allFlags.contains(name) {
                result.flags.insert(name)
            } else if allValues.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < words.count {
                    value = words[index]
                    index += 1
                } else {
                    throw UsageError("\(name) needs a value", command: command)
                }
                // `--config a --config b`: which one was meant is the user's to say, not the last one's.
                if let earlier = result.values[name], earlier != value {
                    throw UsageError("\(name) is given twice ('\(earlier)' and '\(value)'): give it once", command: command)
                }
                result.values[name] = value
            } else {
                let known = allFlags.union(allValues).sorted()
                var message = "unknown option \(name)"
                let takers = commandOptions.filter { $0.values.contains(name) || $0.flags.contains(name) }.map(\.command)
                if !takers.isEmpty {
                    // Another command's option (`import --since`): said as such, not as a typo.
                    message += ": \(command) does not take it; " + Self.listed(takers) + (takers.count == 1 ? " does" : " do")
                } else if let suggestion = NameSuggester.closest(to: name, among: known) {
                    message += " (did you mean \(suggestion)?)"
                }
                throw UsageError(message, command: command)
            }
        }
        return result
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func listed(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// Throws when the line has positional arguments, for a command that takes none
    /// (`status extra` is a mistake to point out, not to ignore).
    func refusePositional(command: String) throws {
        guard let first = positional.first else { return }
        throw UsageError("\(command) takes no arguments, not '\(first)'", command: command)
    }
}

/// A mistake on the command line: exit code 64 with the command's usage hint.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var command: String?
    init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }
    var description: String {
        "\(message)\n  see: healthrouter \(command.map { "\($0) " } ?? "")--help"
    }
}
