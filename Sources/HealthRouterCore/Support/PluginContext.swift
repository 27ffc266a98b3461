import Foundation

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
    /// The config's routes, for a plugin that reports what each sink has yet to deliver
    /// (`Journal.lag(ofSink:after:routes:)`); nil where there is no config (tests, a dump).
    public var routes: RouteTable?
    /// What a leading `~` in a configured path stands for: the command's `HOME`
    /// (see `ConfigPath.homeDirectory(environment:)`).
    public var homeDirectory: String
    /// For a long-running source that listens: where its listening socket goes when it stops,
    /// and where it finds one to listen on when it starts (see `ListenerHandover`). Nil outside
    /// `healthrouter run`: a stopped listener closes its socket.
    public var listenerHandover: ListenerHandover?

    /// A context whose `homeDirectory` is, unless given, the one this process's environment names.
    public init(name: String, stateDirectory: String, logger: Logger, sinkNames: [String] = [], routes: RouteTable? = nil,
                homeDirectory: String = ConfigPath.homeDirectory(environment: ProcessInfo.processInfo.environment)) {
        self.name = name
        self.stateDirectory = stateDirectory
        self.logger = logger
        self.sinkNames = sinkNames
        self.routes = routes
        self.homeDirectory = homeDirectory
    }

    /// A configured path with a leading `~` or `~/` replaced by `homeDirectory`; any other path as it is.
    public func expandingTilde(_ path: String) -> String {
        ConfigPath.expandingTilde(path, homeDirectory: homeDirectory)
    }
}
