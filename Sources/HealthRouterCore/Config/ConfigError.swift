/// A config problem a person can act on: where it is (file, line, column, key path),
/// what is wrong, and, when there is one, what was probably meant.
///
/// `description` is one line (`healthrouter.yaml:12:5: sinks.local.pth: unknown key`),
/// plus a second line with the suggestion (`  hint: did you mean 'path'?`).
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The config file, or nil for text that came from no file.
    public var file: String?
    /// 1-based line, when the problem has a place in the text.
    public var line: Int?
    /// 1-based column, when the problem has a place in the text.
    public var column: Int?
    /// The key path (`sinks.local.batch_size`, `routes[0].to[1]`), when the problem belongs to a key.
    public var path: String?
    /// What is wrong.
    public var message: String
    /// What was probably meant or what to do (`did you mean 'path'?`).
    public var suggestion: String?

    public init(file: String? = nil, line: Int? = nil, column: Int? = nil, path: String? = nil,
                message: String, suggestion: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
        self.suggestion = suggestion
    }

    /// An error at `location` (nil: no place in the text).
    public init(at location: ConfigLocation?, path: String?, message: String, suggestion: String? = nil) {
        self.init(file: location?.file, line: location?.line, column: location?.column,
                  path: path, message: message, suggestion: suggestion)
    }

    /// The place in the text, when the error has one.
    public var location: ConfigLocation? {
        guard let line else { return nil }
        return ConfigLocation(file: file, line: line, column: column ?? 1)
    }

    public var description: String {
        var parts: [String] = []
        switch (file, line) {
        case let (file?, line?): parts.append("\(file):\(line):\(column ?? 1)")
        case let (nil, line?): parts.append("line \(line), column \(column ?? 1)")
        case let (file?, nil): parts.append(file)
        case (nil, nil): break
        }
        if let path, !path.isEmpty { parts.append(path) }
        parts.append(message)
        var text = parts.joined(separator: ": ")
        if let suggestion { text += "\n  hint: \(suggestion)" }
        return text
    }
}
