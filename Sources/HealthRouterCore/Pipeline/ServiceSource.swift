/// A long-running source (an HTTP listener): it accepts items while the daemon runs.
///
/// Lifecycle contract:
/// - `start(ingest:)` is called once; it returns when the source is accepting (a listener
///   bound), or throws `SourceError` saying why it cannot (address in use, bad certificate).
/// - Items are appended through `ingest`, which returns only once they are durable; a source
///   that acknowledges its producer (an HTTP 200) does so only after that.
/// - `stop()` is called once, from another thread: the source stops accepting, lets the
///   requests in flight finish, and returns when none is left. Nothing is called after it.
public protocol ServiceSource: AnyObject, Sendable {
    func start(ingest: PushIngest) throws
    func stop()
    /// The address the source will listen on, as configured (port 0: any free one), known
    /// without I/O, so that a config giving two sources one address is refused by `check`.
    /// Default: nil (not a listener).
    var listenAddress: (host: String, port: UInt16)? { get }
}

extension ServiceSource {
    public var listenAddress: (host: String, port: UInt16)? { nil }
}
