/// How to build and route one configured sink: what a `SinkWorker` needs.
public struct SinkSpec: Sendable {
    public var name: String
    public var type: String
    public var makeSink: @Sendable () throws -> any Sink
    /// Whether the routes send an entry of `type` (nil: a tombstone) from `source` to this sink.
    public var selects: @Sendable (_ type: String?, _ source: String) -> Bool

    public init(name: String, type: String, makeSink: @escaping @Sendable () throws -> any Sink,
                selects: @escaping @Sendable (_ type: String?, _ source: String) -> Bool) {
        self.name = name
        self.type = type
        self.makeSink = makeSink
        self.selects = selects
    }
}
