/// What the core hands a plugin when it creates it.
public struct PluginContext: Sendable {
    /// The plugin's name in the config (`local`, `history`).
    public var name: String
    /// The state directory (journal, cursors, indexes): plugins may keep files under it.
    public var stateDirectory: String
    public var logger: Logger

    public init(name: String, stateDirectory: String, logger: Logger) {
        self.name = name
        self.stateDirectory = stateDirectory
        self.logger = logger
    }
}
