import AppleHealthExportSource
import HealthAutoExportFileSource
import HealthRouterCore
import HTTPPushSource
import HTTPSink
import NDJSONSink
import PostgresSink
import ReplaySource
import SQLiteSink
import TimescaleDBSink

/// A sink type the executable knows: its config key and how to build it.
struct SinkPlugin: Sendable {
    var type: String
    var summary: String
    /// At most how many file descriptors a sink of this type holds while the daemon runs: its
    /// worker's journal connection, its store's files or connections (`OpenFileLimit`).
    var openFiles = 16
    /// The option naming the file or folder on this machine that holds the sink's store (sqlite's
    /// `path`, ndjson's `directory`), which one healthrouter process writes at a time and which must
    /// not be the journal's; nil for a store on a server, which is shared.
    var storeKey: String?
    /// Decodes and checks the plugin's options without I/O, and returns what builds the sink.
    var prepare: @Sendable (PluginConfig, PluginContext) throws -> @Sendable () throws -> any Sink
}

/// A finite source type the executable knows.
struct SourcePlugin: Sendable {
    var type: String
    var summary: String
    /// Decodes and checks the plugin's options without I/O, and returns the source.
    var make: @Sendable (PluginConfig, PluginContext) throws -> any FiniteSource
    /// Whether the file at `path` is this source's input, judged by its content.
    var recognizes: @Sendable (_ path: String) -> Bool
}

/// A long-running source type (a listener) the daemon runs.
struct ServicePlugin: Sendable {
    var type: String
    var summary: String
    /// Decodes and checks the plugin's options without I/O, and returns the source.
    var make: @Sendable (PluginConfig, PluginContext) throws -> any ServiceSource
}

/// The one explicit list of every plugin (DESIGN.md §4): no global registry.
enum PluginList {
    static let sinks: [SinkPlugin] = [
        SinkPlugin(type: "sqlite", summary: "the embedded default store: tables you can query with sqlite3", storeKey: "path") { plugin, context in
            let configuration = try ConfigDecoder.decode(SQLiteSink.Configuration.self, from: plugin.options, path: plugin.path)
            return { SQLiteSink(configuration: configuration, context: context) }
        },
        SinkPlugin(type: "ndjson", summary: "a folder of NDJSON files in Pulso's reference layout",
                   openFiles: 16 + NDJSONSink.maximumOpenFiles, storeKey: "directory") { plugin, context in
            let configuration = try ConfigDecoder.decode(NDJSONSink.Configuration.self, from: plugin.options, path: plugin.path)
            return { NDJSONSink(configuration: configuration, context: context) }
        },
        SinkPlugin(type: "timescaledb", summary: "TimescaleDB hypertables (plain PostgreSQL tables when allowed)") { plugin, context in
            let configuration = try ConfigDecoder.decode(TimescaleDBSink.Configuration.self, from: plugin.options, path: plugin.path)
            return { TimescaleDBSink(configuration: configuration, context: context) }
        },
        SinkPlugin(type: "postgres", summary: "PostgreSQL/Supabase tables in health4ai's schema (healthkit_metrics)") { plugin, context in
            let configuration = try ConfigDecoder.decode(PostgresSink.Configuration.self, from: plugin.options, path: plugin.path)
            if let warning = configuration.summarizeAfterWarning {
                context.logger.warning("\(plugin.path).summarize_after: \(warning)")
            }
            return { PostgresSink(configuration: configuration, context: context) }
        },
        SinkPlugin(type: "http", summary: "a Pulso protocol server, or another healthrouter") { plugin, context in
            let configuration = try ConfigDecoder.decode(HTTPSink.Configuration.self, from: plugin.options, path: plugin.path)
            _ = try located(plugin) { try HTTPSink(configuration: configuration, context: context, path: plugin.path) }
            // What a 413 taught one sink, the next the worker builds after a failure keeps (until a reload).
            let bodyLimit = HTTPBodyLimit()
            return { try HTTPSink(configuration: configuration, context: context, path: plugin.path, bodyLimit: bodyLimit) }
        },
    ]

    static let sources: [SourcePlugin] = [
        SourcePlugin(
            type: "apple_health_export",
            summary: "Apple Health export.zip or export.xml (any size, streamed)",
            make: { plugin, context in
                let configuration = try ConfigDecoder.decode(AppleHealthExportSource.Configuration.self,
                                                             from: plugin.options, path: plugin.path)
                return AppleHealthExportSource(configuration: configuration, context: context)
            },
            // First, and the fallback for anything unrecognised: a zip or XML file (and any file
            // that is not replay input, so that its error names the export).
            recognizes: { !HealthAutoExportFileSource.recognizes($0) && !ReplaySource.recognizes($0) }),
        // Before replay: a Health Auto Export file is one JSON object, which replay would take by
        // its `{` and refuse as no NDJSON.
        SourcePlugin(
            type: "health_auto_export",
            summary: "Health Auto Export's JSON files, read as /hae reads a push (a file or folder)",
            make: { plugin, context in
                let configuration = try ConfigDecoder.decode(HealthAutoExportFileSource.Configuration.self,
                                                             from: plugin.options, path: plugin.path)
                return HealthAutoExportFileSource(configuration: configuration, context: context)
            },
            recognizes: { HealthAutoExportFileSource.recognizes($0) }),
        SourcePlugin(
            type: "replay",
            summary: "NDJSON from an ndjson sink, Pulso's reference server or healthrouter dump (a file or folder)",
            make: { plugin, context in
                let configuration = try ConfigDecoder.decode(ReplaySource.Configuration.self,
                                                             from: plugin.options, path: plugin.path)
                return ReplaySource(configuration: configuration, context: context)
            },
            recognizes: { ReplaySource.recognizes($0) }),
    ]

    static let services: [ServicePlugin] = [
        ServicePlugin(type: "http_push", summary: "an HTTP server phones push to: Pulso protocol v1.2, Health Auto Export") { plugin, context in
            let configuration = try ConfigDecoder.decode(HTTPPushSource.Configuration.self, from: plugin.options, path: plugin.path)
            return try located(plugin) { try HTTPPushSource(configuration: configuration, context: context, path: plugin.path) }
        },
        ServicePlugin(type: "admin", summary: "operations endpoints: /metrics (Prometheus) and /status (JSON)") { plugin, context in
            let configuration = try ConfigDecoder.decode(AdminSource.Configuration.self, from: plugin.options, path: plugin.path)
            return try located(plugin) { try AdminSource(configuration: configuration, context: context, path: plugin.path) }
        },
    ]

    /// The `SinkPlugin.storeKey` of sink type `type`: nil for a store on a server, or a type none has.
    static func storeKey(ofSinkType type: String) -> String? {
        sinks.first { $0.type == type }?.storeKey
    }

    /// Runs a plugin's own checks; a `ConfigError` they throw without a place gets the place of the
    /// key its path names (`sources.phone.users.bob.token`), else the plugin entry's.
    static func located<T>(_ plugin: PluginConfig, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as ConfigError where error.line == nil {
            var location = plugin.location
            if let path = error.path, path.hasPrefix(plugin.path + "."),
               let found = plugin.options.location(ofPath: String(path.dropFirst(plugin.path.count + 1))) {
                location = found
            }
            error.file = location.file
            error.line = location.line
            error.column = location.column
            throw error
        }
    }

    /// Refuses two long-running sources on one address (one port, on the same host or where
    /// either listens on every interface): the second could not listen, and its error would
    /// read as if another program held the port.
    static func refuseSharedAddresses(_ services: [(plugin: PluginConfig, source: any ServiceSource)]) throws {
        var seen: [(plugin: PluginConfig, host: String, port: UInt16)] = []
        for (plugin, source) in services {
            guard let (host, port) = source.listenAddress, port != 0 else { continue }
            if let other = seen.first(where: { $0.port == port && ($0.host == host || $0.host == "0.0.0.0" || host == "0.0.0.0") }) {
                throw ConfigError(at: plugin.options.location(ofPath: "listen") ?? plugin.location, path: plugin.path + ".listen",
                                  message: "\(host):\(port) is also where source '\(other.plugin.name)' listens "
                                    + "(\(other.plugin.path).listen: \(other.host):\(other.port)): two sources cannot share a port",
                                  suggestion: "give each source a port of its own")
            }
            seen.append((plugin, host, port))
        }
    }

    static func sink(type: String) -> SinkPlugin? { sinks.first { $0.type == type } }
    static func source(type: String) -> SourcePlugin? { sources.first { $0.type == type } }
    static func service(type: String) -> ServicePlugin? { services.first { $0.type == type } }
    /// Every source type, finite or long-running, for messages.
    static var sourceTypes: [String] { sources.map(\.type) + services.map(\.type) }
    static var sinkTypes: [String] { sinks.map(\.type) }
}
