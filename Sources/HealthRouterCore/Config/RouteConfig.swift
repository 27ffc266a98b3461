/// One entry of `routes:`: the types it selects, optionally the sources it selects,
/// and the sinks that receive what it selects.
///
/// Routes add up: a sink receives an entry when any route naming that sink selects it.
/// A route selects an entry when one of `types` matches its type and, if `from` is
/// given, the entry came from one of those sources.
///
/// `types`, `from` and `to` are lists; a single name may be written without brackets
/// (`to: local`).
public struct RouteConfig: Sendable, Hashable, Decodable {
    /// Selectors: `*`, a HealthKit identifier, a short key (`heartRate`), a group
    /// (`sleep`), or a glob on the identifier or short key (`HKQuantityTypeIdentifier*`, `heart*`).
    public var types: [String]
    /// Source names; nil selects every source.
    public var from: [String]?
    /// Sink names.
    public var to: [String]
    /// Where the route was written; nil for the default route.
    public var location: ConfigLocation?
    /// The key path (`routes[0]`), or `routes (default)` for the default route.
    public var path: String
    /// True for the route healthrouter adds when a config has sinks but no routes.
    public var isDefault: Bool

    public init(types: [String], from: [String]? = nil, to: [String], location: ConfigLocation? = nil,
                path: String = "routes", isDefault: Bool = false) {
        self.types = types
        self.from = from
        self.to = to
        self.location = location
        self.path = path
        self.isDefault = isDefault
    }

    /// The route healthrouter adds to a config with sinks and no routes: every type,
    /// from every source, to every sink.
    public static func defaultRoute(toSinks sinks: [String]) -> RouteConfig {
        RouteConfig(types: ["*"], to: sinks, path: "routes (default)", isDefault: true)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case types, from, to
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        types = try container.decode(NameList.self, forKey: .types).names
        from = try container.decodeIfPresent(NameList.self, forKey: .from)?.names
        to = try container.decode(NameList.self, forKey: .to).names
        location = decoder.configNode?.location
        path = decoder.configPath ?? "routes"
        isDefault = false
    }

    /// A list of names, or one name written alone.
    private struct NameList: Decodable {
        var names: [String]

        init(from decoder: any Decoder) throws {
            if let node = decoder.configNode, node.scalar != nil {
                names = [try decoder.singleValueContainer().decode(String.self)]
            } else {
                names = try [String](from: decoder)
            }
        }
    }
}
