import Foundation
import Synchronization

/// Listening sockets handed from a config's listeners to the next config's across a reload
/// (SIGHUP). The address stays bound throughout: a phone that connects while one config stops
/// and the next starts waits in the socket's backlog and is answered by the next config's
/// listener, instead of being refused.
///
/// Contract:
/// - The daemon calls `beginReload()` before the running config's sources stop for a reload,
///   and `endReload()` once a config's sources listen again (the next one's, or the previous
///   one's when the next cannot start): the sockets no listener took then are closed.
/// - A listener that stops during a reload gives its socket, still open and bound, to
///   `release(_:address:)` (outside one it closes the socket itself, at once). One that starts
///   asks `take(address:)` for a socket bound to its configured address and listens on that one
///   when there is one. An address with port 0 (any free port) is never handed on: the next
///   config gets a port of its own.
public final class ListenerHandover: Sendable {
    /// A configured listen address (`127.0.0.1`, 8787).
    private struct Address: Hashable {
        var host: String
        var port: UInt16
    }

    private struct State {
        var reloading = false
        /// Open listening sockets by configured address.
        var kept: [Address: Int32] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The running config's listeners are about to stop for a reload: keep their sockets.
    public func beginReload() {
        state.withLock { $0.reloading = true }
    }

    /// A config listens again: closes the sockets none of its listeners took, and lets the
    /// sockets of listeners that stop from now on be closed.
    public func endReload() {
        let unclaimed = state.withLock { state -> [Int32] in
            state.reloading = false
            defer { state.kept = [:] }
            return Array(state.kept.values)
        }
        for socket in unclaimed { close(socket) }
    }

    /// Takes the socket of a stopped listener (open, bound, listening): kept for the next
    /// config's listener on `address` during a reload, closed otherwise.
    public func release(_ socket: Int32, address: (host: String, port: UInt16)) {
        let key = Self.key(address)
        let kept = state.withLock { state -> Bool in
            guard state.reloading, let key, state.kept[key] == nil else { return false }
            state.kept[key] = socket
            return true
        }
        if !kept { close(socket) }
    }

    /// The socket a stopped listener left bound to `address`, now the caller's (to listen on, or
    /// to give back through `release`); nil when there is none. A socket kept on the same port
    /// for an overlapping address (`0.0.0.0:8787` for `127.0.0.1:8787`, or the other way round)
    /// is closed first, so that the caller can bind its own: it would hold the port.
    public func take(address: (host: String, port: UInt16)) -> Int32? {
        guard let key = Self.key(address) else { return nil }
        let (taken, overlapping) = state.withLock { state -> (Int32?, [Int32]) in
            if let exact = state.kept.removeValue(forKey: key) { return (exact, []) }
            let clashing = state.kept.keys.filter { $0.port == key.port && ($0.host == "0.0.0.0" || key.host == "0.0.0.0") }
            return (nil, clashing.compactMap { state.kept.removeValue(forKey: $0) })
        }
        for socket in overlapping { close(socket) }
        return taken
    }

    /// Whether a reload is under way (between `beginReload()` and `endReload()`).
    public var isReloading: Bool { state.withLock { $0.reloading } }

    /// The number of sockets kept for the next config.
    public var keptCount: Int { state.withLock { $0.kept.count } }

    private static func key(_ address: (host: String, port: UInt16)) -> Address? {
        address.port == 0 ? nil : Address(host: address.host, port: address.port)
    }
}
