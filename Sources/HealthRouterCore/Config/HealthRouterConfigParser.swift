/// Turns config text into a validated `HealthRouterConfig`: YAML → `${ENV}` → core keys
/// → plugins → routes → default route → warnings. Pure: no I/O.
struct HealthRouterConfigParser {
    let file: String?
    let environment: [String: String]
    /// Top-level sections the caller will not use: an unset `${NAME}` there is left as written.
    var unusedSections: Set<String> = []
    /// Entries of `unusedSections` a command still uses (`sinks.local`: see `EnvironmentSubstitution`).
    var stillUsed: Set<String> = []
    /// Source types the command does not start (`http_push` for an import, the file sources for
    /// the daemon): an unset `${NAME}` in a source of one of them is left as written, as under an
    /// unused section.
    var idleSourceTypes: Set<String> = []

    /// The top-level keys; `sources`, `sinks` and `routes` stay nodes so that each entry
    /// keeps its own place for messages.
    private struct Document: Decodable {
        var stateDirectory: String?
        var journal: JournalConfig?
        var sources: ConfigNode?
        var sinks: ConfigNode?
        var routes: ConfigNode?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case stateDirectory = "state_directory", journal, sources, sinks, routes
        }
    }

    func parse(_ bytes: [UInt8]) throws(ConfigError) -> HealthRouterConfig {
        let parsed = try YAMLParser.parse(bytes, file: file)
        var unused = unusedSections, used = stillUsed
        // A source counts as idle by its type as written (one given by `${NAME}` counts as used).
        if !idleSourceTypes.isEmpty, !unused.contains("sources"), let sources = parsed["sources"]?.entries {
            unused.insert("sources")
            for entry in sources where !(entry.value["type"]?.scalar.map(idleSourceTypes.contains) ?? false) {
                used.insert(ConfigKeyPath.appending(entry.key, to: "sources"))
            }
        }
        let root = try EnvironmentSubstitution.apply(to: parsed, environment: environment, path: "", unused: unused,
                                                       stillUsed: used)
        if !root.isNull, root.entries == nil {
            throw ConfigError(at: root.location, path: nil, message: "expected a mapping of settings at the top of the file, found \(root.kindDescription)",
                              suggestion: "start with keys such as 'sinks:' and 'routes:'")
        }
        let document = try ConfigDecoder.decode(Document.self, from: root, path: "")

        var config = HealthRouterConfig(file: file)
        if let stateDirectory = document.stateDirectory {
            guard !stateDirectory.isEmpty else {
                throw ConfigError(at: root["state_directory"]?.location, path: "state_directory", message: "must not be empty",
                                  suggestion: "remove the key to use \(HealthRouterConfig.defaultStateDirectory)")
            }
            config.stateDirectory = stateDirectory
        }
        config.journal = document.journal ?? JournalConfig()
        config.sources = try plugins(document.sources, kind: .source)
        config.sinks = try plugins(document.sinks, kind: .sink)
        var warnings: [ConfigWarning] = []
        config.routes = try routes(document.routes, config: config, warnings: &warnings)
        if config.routes.isEmpty, !config.sinks.isEmpty {
            config.routes = [.defaultRoute(toSinks: config.sinks.map(\.name))]
        }
        config.warnings = warnings + coverageWarnings(config)
        return config
    }

    // MARK: - Plugins

    private func plugins(_ node: ConfigNode?, kind: PluginConfig.Kind) throws(ConfigError) -> [PluginConfig] {
        guard let node, !node.isNull else { return [] }
        guard let entries = node.entries else {
            throw ConfigError(at: node.location, path: kind.section,
                              message: "expected a mapping of \(kind.rawValue) names to settings, found \(node.kindDescription)",
                              suggestion: "write '\(kind.section):' then one indented 'name:' per \(kind.rawValue), each with a 'type:'")
        }
        var result: [PluginConfig] = []
        for entry in entries {
            let path = ConfigKeyPath.appending(entry.key, to: kind.section)
            try checkName(entry.key, location: entry.keyLocation, path: path)
            let body = entry.value
            guard let fields = body.entries ?? (body.isNull ? [] : nil) else {
                throw ConfigError(at: body.location, path: path, message: "expected the \(kind.rawValue)'s settings, found \(body.kindDescription)",
                                  suggestion: "write 'type:' and the plugin's keys indented below '\(entry.key):'")
            }
            guard let typeEntry = fields.first(where: { $0.key == "type" }) else {
                throw ConfigError(at: entry.keyLocation, path: path, message: "missing 'type'",
                                  suggestion: "add 'type:' with the plugin, e.g. type: \(kind == .sink ? "sqlite" : "apple_health_export")")
            }
            guard let type = typeEntry.value.scalar, !type.isEmpty else {
                throw ConfigError(at: typeEntry.value.location, path: path + ".type",
                                  message: "expected a plugin type, found \(typeEntry.value.kindDescription)")
            }
            let options = ConfigNode(.mapping(fields.filter { $0.key != "type" }),
                                     location: body.isNull ? entry.keyLocation : body.location)
            result.append(PluginConfig(kind: kind, name: entry.key, type: type, options: options,
                                       location: entry.keyLocation, typeLocation: typeEntry.value.location))
        }
        return result
    }

    private func checkName(_ name: String, location: ConfigLocation, path: String) throws(ConfigError) {
        let valid = !name.isEmpty && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard !valid else { return }
        let proposal = String(name.lowercased().map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" ? $0 : "_" })
        throw ConfigError(at: location, path: path, message: "invalid name '\(name)'",
                          suggestion: "names use lowercase letters, digits, '_' and '-'" + (proposal.isEmpty ? "" : ", e.g. '\(proposal)'"))
    }

    // MARK: - Routes

    private func routes(_ node: ConfigNode?, config: HealthRouterConfig,
                        warnings: inout [ConfigWarning]) throws(ConfigError) -> [RouteConfig] {
        guard let node, !node.isNull else { return [] }
        guard let items = node.items else {
            throw ConfigError(at: node.location, path: "routes", message: "expected a list of routes, found \(node.kindDescription)",
                              suggestion: "write each route as a list item: '- types: [\"*\"]' with 'to: [sink]' below")
        }
        let sinkNames = config.sinks.map(\.name)
        let sourceNames = config.sources.map(\.name)
        var result: [RouteConfig] = []
        for (index, item) in items.enumerated() {
            let path = ConfigKeyPath.appending(index: index, to: "routes")
            let route = try ConfigDecoder.decode(RouteConfig.self, from: item, path: path)
            try checkSelectors(route.types, node: item["types"], routePath: path, warnings: &warnings)
            try checkNames(route.to, key: "to", node: item["to"], routePath: path, known: sinkNames, kind: .sink)
            if let from = route.from {
                try checkNames(from, key: "from", node: item["from"], routePath: path, known: sourceNames, kind: .source)
            }
            result.append(route)
        }
        return result
    }

    /// The node of list item `index` of `node`, or `node` itself when the list was written as one name.
    private func itemNode(_ node: ConfigNode?, _ index: Int) -> ConfigNode? {
        node?.items?[index] ?? node
    }

    /// Malformed selectors are errors; well-formed ones that match nothing known are warnings,
    /// since unknown types must stay routable by their identifier.
    private func checkSelectors(_ selectors: [String], node: ConfigNode?, routePath: String,
                                warnings: inout [ConfigWarning]) throws(ConfigError) {
        let path = routePath + ".types"
        guard !selectors.isEmpty else {
            throw ConfigError(at: node?.location, path: path, message: "selects no types",
                              suggestion: "list types, groups or globs, e.g. types: [\"*\"] for everything")
        }
        for (index, text) in selectors.enumerated() {
            let selector = TypeSelector(text)
            let location = itemNode(node, index)?.location
            let itemPath = ConfigKeyPath.appending(index: index, to: path)
            guard selector.isWellFormed else {
                throw ConfigError(at: location, path: itemPath, message: "'\(text)' is not a type selector",
                                  suggestion: "use a HealthKit identifier (HKQuantityTypeIdentifierHeartRate), a short key (heartRate), a group (sleep) or a glob (HKQuantity*)")
            }
            if !selector.isKnownOrGlob {
                warnings.append(ConfigWarning(
                    location: location, path: itemPath,
                    message: "'\(text)' is no known type, short key or group; it selects only a type with exactly this identifier",
                    suggestion: NameSuggester.closest(to: text, among: TypeSelector.knownNames).map { "did you mean '\($0)'?" }))
            }
        }
    }

    private func checkNames(_ names: [String], key: String, node: ConfigNode?, routePath: String,
                            known: [String], kind: PluginConfig.Kind) throws(ConfigError) {
        let path = routePath + "." + key
        guard !names.isEmpty else {
            throw ConfigError(at: node?.location, path: path, message: "names no \(kind.rawValue)",
                              suggestion: kind == .sink ? "list the sinks that receive this route" : "remove 'from:' to select every source")
        }
        for (index, name) in names.enumerated() where !known.contains(name) {
            let suggestion = known.isEmpty
                ? "define it under '\(kind.section):'"
                : NameSuggester.hint(for: name, among: known, noun: kind.section)
            throw ConfigError(at: itemNode(node, index)?.location, path: ConfigKeyPath.appending(index: index, to: path),
                              message: "no \(kind.rawValue) named '\(name)'", suggestion: suggestion)
        }
    }

    // MARK: - Warnings

    /// No sink at all, sinks no route feeds, and sources no route selects.
    private func coverageWarnings(_ config: HealthRouterConfig) -> [ConfigWarning] {
        var warnings: [ConfigWarning] = []
        if config.sinks.isEmpty {
            warnings.append(ConfigWarning(location: nil, path: "sinks", message: "no sinks: samples are journaled but delivered nowhere",
                                          suggestion: "add one under sinks: (config/healthrouter.reference.yaml lists them)"))
        }
        let fed = Set(config.routes.flatMap(\.to))
        for sink in config.sinks where !fed.contains(sink.name) {
            warnings.append(ConfigWarning(location: sink.location, path: sink.path, message: "no route sends anything to this sink",
                                          suggestion: "add '\(sink.name)' to a route's 'to:'"))
        }
        if !config.sinks.isEmpty, !config.routes.contains(where: { $0.from == nil }) {
            let routed = Set(config.routes.compactMap(\.from).joined())
            for source in config.sources where !routed.contains(source.name) {
                warnings.append(ConfigWarning(location: source.location, path: source.path,
                                              message: "no route selects this source; its samples stay in the journal",
                                              suggestion: "add '\(source.name)' to a route's 'from:', or add a route without 'from:'"))
            }
        }
        return warnings
    }
}
