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
    /// Starts accepting, on the daemon's thread (after its sink workers started), one source
    /// after another in config order. Throws `SourceError` when it cannot; then `stop()` is not
    /// called on it (whatever it acquired before throwing it releases itself), and the sources
    /// started before it are stopped. `ingest` is safe to call from any number of threads at once
    /// (each request's handler), and outlives the source.
    func start(ingest: PushIngest) throws
    /// Stops accepting: called once, from another thread than the requests' (one of the daemon's,
    /// at a stop or a reload that replaces the source, while the other sources stop beside it),
    /// after a `start` that returned. Returns when no request is in flight: none calls `ingest`
    /// after it.
    func stop()
    /// The address the source will listen on, as configured (port 0: any free one), known
    /// without I/O, so that a config giving two sources one address is refused by `check`.
    /// Default: nil (not a listener).
    var listenAddress: (host: String, port: UInt16)? { get }
    /// At most how many file descriptors the source holds at once while it runs, known without
    /// I/O: its connections, listening socket and files (`healthrouter run` weighs the process's
    /// open-file limit against it). Default: 0.
    var openFilesNeeded: Int { get }
}

extension ServiceSource {
    public var listenAddress: (host: String, port: UInt16)? { nil }
    public var openFilesNeeded: Int { 0 }
}
