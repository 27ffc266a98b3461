/// A source failure a person can act on: it names the input and says what to do.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    /// The file or endpoint concerned.
    public var input: String
    /// Where in it, when known (`line 41`, `entry apple_health_export/export.xml`).
    public var location: String?
    /// What is wrong.
    public var problem: String
    /// What the user can do about it.
    public var hint: String?
    /// Whether the input could not be opened or read at all (missing, no permission), rather
    /// than read and found wrong: a command's exit code tells the two apart.
    public var cannotRead: Bool
    /// Whether the state directory refused a write (a full disk, a temporary file that cannot be
    /// created), rather than the input being wrong: an import exits 73, as when the journal does.
    public var stateNotWritable: Bool

    public init(input: String, location: String? = nil, problem: String, hint: String? = nil, cannotRead: Bool = false,
                stateNotWritable: Bool = false) {
        self.input = input
        self.location = location
        self.problem = problem
        self.hint = hint
        self.cannotRead = cannotRead
        self.stateNotWritable = stateNotWritable
    }

    public var description: String {
        var text = input
        if let location { text += ", \(location)" }
        text += ": \(problem)"
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}
