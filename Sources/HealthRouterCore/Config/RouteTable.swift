import Synchronization

/// Decides which sinks receive an entry, from its type and the source it came from.
///
/// Routes add up: a sink receives an entry when any route that names it selects the
/// entry (see `RouteConfig`). An entry no route selects goes nowhere and stays in the
/// journal. Answers are computed once per (type, source) pair and cached, since sink
/// workers ask for every entry; the table itself is immutable and may be shared.
public final class RouteTable: Sendable {
    /// Sink names in config order; `sinks(forType:source:)` answers in this order.
    public let sinkNames: [String]
    private let routes: [CompiledRoute]
    private let cache = Mutex<[Pair: [String]]>([:])
    /// Beyond this many distinct pairs answers are computed without caching (bounds memory
    /// if a source invents types).
    private static let cacheLimit = 16_384

    private struct CompiledRoute: Sendable {
        let selectors: [TypeSelector]
        let sources: Set<String>?
        let sinkIndices: [Int]
    }

    private struct Pair: Hashable, Sendable {
        let type: String
        let source: String
    }

    /// The routes of `config`, delivering to its sinks.
    public convenience init(config: HealthRouterConfig) {
        self.init(routes: config.routes, sinkNames: config.sinks.map(\.name))
    }

    /// `routes` over `sinkNames`; a route's sink that is not in `sinkNames` is appended
    /// after them (a validated config has none).
    public init(routes: [RouteConfig], sinkNames: [String]) {
        var names = sinkNames
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        var compiled: [CompiledRoute] = []
        for route in routes {
            var sinkIndices: [Int] = []
            for name in route.to {
                if index[name] == nil {
                    index[name] = names.count
                    names.append(name)
                }
                sinkIndices.append(index[name]!)
            }
            compiled.append(CompiledRoute(selectors: route.types.map(TypeSelector.init), sources: route.from.map(Set.init),
                                          sinkIndices: sinkIndices))
        }
        self.sinkNames = names
        self.routes = compiled
    }

    /// The names of the sinks that receive an entry of `type` (a HealthKit identifier, or
    /// a short key) from the source named `source`: unique, in config order; empty when
    /// no route selects it.
    public func sinks(forType type: String, source: String) -> [String] {
        let pair = Pair(type: type, source: source)
        if let cached = cache.withLock({ $0[pair] }) { return cached }
        let answer = compute(type: type, source: source)
        cache.withLock { cache in
            if cache.count < Self.cacheLimit { cache[pair] = answer }
        }
        return answer
    }

    /// True when the sink named `sink` receives an entry of `type` from `source`.
    public func selects(sink: String, type: String, source: String) -> Bool {
        sinks(forType: type, source: source).contains(sink)
    }

    private func compute(type: String, source: String) -> [String] {
        let known = TypeRegistry.type(identifier: type) ?? TypeRegistry.type(key: type)
        let identifier = known?.identifier ?? type
        let key = known?.key
        let group = known?.group ?? TypeRegistry.unknownGroup
        var selected = [Bool](repeating: false, count: sinkNames.count)
        for route in routes {
            if let sources = route.sources, !sources.contains(source) { continue }
            guard route.selectors.contains(where: { $0.matches(identifier: identifier, key: key, group: group) }) else { continue }
            for index in route.sinkIndices { selected[index] = true }
        }
        return sinkNames.indices.filter { selected[$0] }.map { sinkNames[$0] }
    }
}
