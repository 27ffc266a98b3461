/// A config finding that does not stop healthrouter but that a person should look at
/// (a route selector that matches no known type). `check` prints these.
public struct ConfigWarning: Sendable, Hashable, CustomStringConvertible {
    /// Where the finding is, when it has a place in the text.
    public var location: ConfigLocation?
    /// The key path (`routes[0].types[1]`).
    public var path: String
    /// What is odd.
    public var message: String
    /// What was probably meant.
    public var suggestion: String?

    public init(location: ConfigLocation?, path: String, message: String, suggestion: String? = nil) {
        self.location = location
        self.path = path
        self.message = message
        self.suggestion = suggestion
    }

    /// Same layout as `ConfigError`: `file:line:column: path: message`, then `  hint: …`.
    public var description: String {
        ConfigError(at: location, path: path, message: message, suggestion: suggestion).description
    }
}
