/// What the core hands a plugin when it creates it.
public struct PluginContext: Sendable {
    /// The plugin's name in the config (`local`, `history`).
    public var name: String
    /// The state directory (journal, cursors, indexes): plugins may keep files under it.
    public var stateDirectory: String
    public var logger: Logger
    /// The names of the config's sinks, in config order: every sink the daemon delivers to,
    /// whether or not it has written yet.
    public var sinkNames: [String]

    public init(name: String, stateDirectory: String, logger: Logger, sinkNames: [String] = []) {
        self.name = name
        self.stateDirectory = stateDirectory
        self.logger = logger
        self.sinkNames = sinkNames
    }
}
