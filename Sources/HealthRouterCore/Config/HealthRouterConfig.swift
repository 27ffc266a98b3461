import Foundation

/// A validated healthrouter configuration (DESIGN.md §5): where state lives, how long
/// the journal keeps entries, the sources and sinks with their still-undecoded plugin
/// options, and the routes between them.
///
/// Loading checks everything that needs no I/O: YAML syntax, `${ENV}` references,
/// unknown or mistyped core keys, names, that every plugin has a `type`, that routes
/// name existing sources and sinks, and that type selectors are well-formed. Plugin
/// options are checked when the executable decodes them (`PluginConfig.decodeOptions`),
/// and plugin types by `checkPluginTypes`.
///
/// **Default route.** A config with sinks and no routes (no `routes:` key, or an empty
/// list) gets one route, `types: ["*"]` from every source to every sink, marked
/// `isDefault`. To keep a sink out of it, write routes.
public struct HealthRouterConfig: Sendable {
    /// `./healthrouter-data`.
    public static let defaultStateDirectory = "./healthrouter-data"

    /// The directory for the journal and other state, as written (see `ConfigPath.resolve`).
    public var stateDirectory: String
    public var journal: JournalConfig
    /// Sources in file order.
    public var sources: [PluginConfig]
    /// Sinks in file order; routes deliver to them in this order.
    public var sinks: [PluginConfig]
    /// Routes in file order, or the one default route.
    public var routes: [RouteConfig]
    /// The file the config came from; nil for the embedded default or text.
    public var file: String?
    /// Findings that do not stop healthrouter (a selector that matches no known type,
    /// a sink no route feeds); `check` prints them.
    public var warnings: [ConfigWarning]

    public init(stateDirectory: String = defaultStateDirectory, journal: JournalConfig = JournalConfig(),
                sources: [PluginConfig] = [], sinks: [PluginConfig] = [], routes: [RouteConfig] = [],
                file: String? = nil, warnings: [ConfigWarning] = []) {
        self.stateDirectory = stateDirectory
        self.journal = journal
        self.sources = sources
        self.sinks = sinks
        self.routes = routes
        self.file = file
        self.warnings = warnings
    }

    /// Reads and validates the config file at `path`; `environment` supplies `${ENV}`. Under the
    /// top-level sections in `unusedSections` (`sources`, for a command that starts none; `sinks`,
    /// but for the entries in `stillUsed`, as `sinks.local`), and in the sources of
    /// `idleSourceTypes` (the types the command does not start), an unset variable is left as
    /// written instead of being an error.
    /// The largest config file read (a config of many users and sinks is a few hundred kilobytes).
    public static let largestFile = 16 << 20

    public static func load(path: String,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            unusedSections: Set<String> = [], stillUsed: Set<String> = [],
                            idleSourceTypes: Set<String> = []) throws(ConfigError) -> HealthRouterConfig {
        // Read through a descriptor rather than `Data(contentsOf:)`, which fails on a pipe
        // (`--config <(envsubst < healthrouter.yaml)`) with a message about permissions.
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = errno
            let missing = reason == ENOENT
            throw ConfigError(file: path, message: missing ? "config file not found" : "cannot read config file (\(String(cString: strerror(reason))))",
                              suggestion: missing ? "check the path, or run without a config to use the embedded default" : nil)
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw ConfigError(file: path, message: "is a folder, not a config file",
                              suggestion: "name the YAML file, e.g. \((path as NSString).appendingPathComponent("healthrouter.yaml"))")
        }
        var data = Data()
        do {
            // Read in pieces up to a limit: `--config /dev/zero` (or a log given by mistake) would
            // otherwise take all the memory there is.
            while let piece = try file.read(upToCount: 1 << 20), !piece.isEmpty {
                data.append(piece)
                guard data.count <= largestFile else {
                    throw ConfigError(file: path, message: "is larger than \(largestFile >> 20) MiB: not a config file",
                                      suggestion: "name the YAML config (a few kilobytes), e.g. healthrouter.yaml")
                }
            }
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(file: path, message: "cannot read config file (\(error.localizedDescription))")
        }
        return try HealthRouterConfigParser(file: path, environment: environment, unusedSections: unusedSections,
                                            stillUsed: stillUsed, idleSourceTypes: idleSourceTypes).parse([UInt8](data))
    }

    /// Parses and validates YAML text; `file` is only used in messages.
    public static func parse(yaml: String, file: String? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigError) -> HealthRouterConfig {
        try HealthRouterConfigParser(file: file, environment: environment).parse(Array(yaml.utf8))
    }

    /// The config used when there is none: sinks `local` (sqlite, `<state>/health.sqlite`)
    /// and `lake` (ndjson, `<state>/ndjson`), every type routed to both, no sources.
    public static func embeddedDefault(stateDirectory: String = defaultStateDirectory) -> HealthRouterConfig {
        do {
            return try parse(yaml: embeddedDefaultYAML(stateDirectory: stateDirectory), file: nil, environment: [:])
        } catch {
            preconditionFailure("the embedded default config is invalid: \(error)")
        }
    }

    /// The YAML text of `embeddedDefault(stateDirectory:)`, e.g. for `healthrouter check --print`.
    public static func embeddedDefaultYAML(stateDirectory: String = defaultStateDirectory) -> String {
        let base = stateDirectory.hasSuffix("/") && stateDirectory.count > 1 ? String(stateDirectory.dropLast()) : stateDirectory
        return """
            # healthrouter's embedded default: used when no config file is given.
            state_directory: \(yamlQuoted(stateDirectory))
            journal:
              retain: 30d
            sinks:
              local:
                type: sqlite
                path: \(yamlQuoted(base + "/health.sqlite"))
              lake:
                type: ndjson
                directory: \(yamlQuoted(base + "/ndjson"))
            routes:
              - types: ["*"]
                to: [local, lake]

            """
    }

    /// A double-quoted YAML scalar that survives `${ENV}` substitution unchanged.
    private static func yamlQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.replacingOccurrences(of: "${", with: "$${").unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    public func source(named name: String) -> PluginConfig? { sources.first { $0.name == name } }
    public func sink(named name: String) -> PluginConfig? { sinks.first { $0.name == name } }

    /// Throws for the first source or sink whose `type` is not among the given plugin
    /// types (the executable's plugin list), suggesting the closest one.
    public func checkPluginTypes(sources sourceTypes: [String], sinks sinkTypes: [String]) throws(ConfigError) {
        for (plugins, known) in [(sources, sourceTypes), (sinks, sinkTypes)] {
            for plugin in plugins where !known.contains(plugin.type) {
                throw Self.unknownType(of: plugin, known: known)
            }
        }
    }

    /// The error for `plugin`, whose `type` is none of `known`: it names the line and suggests
    /// the closest type.
    public static func unknownType(of plugin: PluginConfig, known: [String]) -> ConfigError {
        ConfigError(at: plugin.typeLocation, path: plugin.path + ".type",
                    message: "unknown \(plugin.kind.rawValue) type '\(plugin.type)'",
                    suggestion: NameSuggester.hint(for: plugin.type, among: known, noun: "\(plugin.kind.rawValue) types"))
    }
}
