/// One entry of `sources:` or `sinks:`: its name (the mapping key), its `type`, and the
/// rest of its keys, which only the plugin knows. The executable's plugin list finds the
/// plugin by `type` and decodes `options` into the plugin's `Configuration`:
///
/// ```swift
/// let configuration = try plugin.decodeOptions(SQLiteSink.Configuration.self)
/// ```
public struct PluginConfig: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case source, sink

        /// The top-level key the plugin is written under: `sources` or `sinks`.
        public var section: String { self == .source ? "sources" : "sinks" }
    }

    public var kind: Kind
    /// The name routes and cursors use (`local`): lowercase letters, digits, `_`, `-`.
    public var name: String
    /// The plugin type (`sqlite`, `apple_health_export`).
    public var type: String
    /// The plugin's own keys: the entry's mapping without `type`. `${ENV}` is already substituted.
    public var options: ConfigNode
    /// Where the entry's name was written.
    public var location: ConfigLocation
    /// Where the `type` value was written.
    public var typeLocation: ConfigLocation

    public init(kind: Kind, name: String, type: String, options: ConfigNode, location: ConfigLocation,
                typeLocation: ConfigLocation? = nil) {
        self.kind = kind
        self.name = name
        self.type = type
        self.options = options
        self.location = location
        self.typeLocation = typeLocation ?? location
    }

    /// The key path of the entry: `sinks.local`.
    public var path: String { "\(kind.section).\(name)" }

    /// Decodes the plugin's options; errors name paths below `path` and reject unknown keys.
    public func decodeOptions<T: Decodable>(_ type: T.Type) throws(ConfigError) -> T {
        try ConfigDecoder.decode(T.self, from: options, path: path)
    }
}
