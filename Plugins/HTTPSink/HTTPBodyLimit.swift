import Synchronization

/// The body size (uncompressed bytes) an http sink learnt its receiver takes from a 413, shared
/// by the sinks one config builds (`PluginList`): the worker builds its sink anew after every
/// failure (a receiver busy or gone for a moment), and that sink must not start at 8 MiB again,
/// paying a 413 and a split for the next batch and warning again. It lasts until the config is
/// loaded again (a restart, a reload): a proxy's limit does not change by itself.
public final class HTTPBodyLimit: Sendable {
    private let learnt = Mutex<Int?>(nil)

    public init() {}

    /// The size learnt, nil before any 413 of several elements.
    var bytes: Int? { learnt.withLock { $0 } }

    /// Lowers the size to `limit`; false, and unchanged, when it is that low already.
    func lower(to limit: Int) -> Bool {
        learnt.withLock { bytes in
            guard bytes.map({ limit < $0 }) ?? true else { return false }
            bytes = limit
            return true
        }
    }
}
