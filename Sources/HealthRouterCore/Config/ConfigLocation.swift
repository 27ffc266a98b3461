/// Where something was written in a config file: 1-based line and column.
public struct ConfigLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file as the user named it, or nil for text that came from no file (the embedded default).
    public var file: String?
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int

    public init(file: String?, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `healthrouter.yaml:12:5`, or `line 12, column 5` without a file.
    public var description: String {
        if let file { return "\(file):\(line):\(column)" }
        return "line \(line), column \(column)"
    }
}
