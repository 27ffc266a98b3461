import Foundation
@testable import HealthRouterCore
import Testing

/// `ListenerHandover` keeps a stopped listener's socket for the next config only during a
/// reload, under its configured address, and closes every socket nobody took.
@Suite struct ListenerHandoverTests {
    /// A loopback TCP socket bound to a free port and listening.
    static func listeningSocket() throws -> (socket: Int32, port: UInt16) {
        let handle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(handle >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(handle, $0, length) == 0 && listen(handle, 4) == 0 && getsockname(handle, $0, &length) == 0
            }
        }
        try #require(bound)
        return (handle, UInt16(bigEndian: address.sin_port))
    }

    /// Whether a connection to `port` on loopback is accepted (the socket is open and listens).
    /// (A descriptor's number says nothing: a test running beside may reuse it once closed.)
    static func listens(_ port: UInt16) -> Bool {
        let handle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(handle) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(handle, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    @Test func outsideAReloadASocketIsClosed() throws {
        let handover = ListenerHandover()
        let (socket, port) = try Self.listeningSocket()
        #expect(Self.listens(port))
        handover.release(socket, address: ("127.0.0.1", port))
        #expect(!Self.listens(port))
        #expect(handover.take(address: ("127.0.0.1", port)) == nil)
    }

    @Test func duringAReloadTheSocketWaitsForItsAddress() throws {
        let handover = ListenerHandover()
        let (socket, port) = try Self.listeningSocket()
        defer { close(socket) }
        handover.beginReload()
        #expect(handover.isReloading)
        handover.release(socket, address: ("127.0.0.1", port))
        #expect(Self.listens(port))
        #expect(handover.take(address: ("127.0.0.2", port)) == nil)
        #expect(handover.take(address: ("127.0.0.1", port &+ 1)) == nil)
        #expect(handover.take(address: ("127.0.0.1", port)) == socket)
        #expect(handover.take(address: ("127.0.0.1", port)) == nil)
        handover.endReload()
        #expect(Self.listens(port), "a socket taken is the taker's")
        #expect(!handover.isReloading)
    }

    @Test func theEndOfAReloadClosesWhatNobodyTook() throws {
        let handover = ListenerHandover()
        let (socket, port) = try Self.listeningSocket()
        handover.beginReload()
        handover.release(socket, address: ("127.0.0.1", port))
        #expect(handover.keptCount == 1)
        #expect(Self.listens(port))
        handover.endReload()
        #expect(!Self.listens(port))
        #expect(handover.keptCount == 0)
        #expect(handover.take(address: ("127.0.0.1", port)) == nil)
    }

    /// A listener on an address that overlaps a kept one on the same port (`0.0.0.0:P` after
    /// `127.0.0.1:P`, or the other way round) finds none to take, and the kept one is closed so that
    /// it can bind its own (a reload between the two failed with "address in use").
    @Test func anOverlappingAddressClosesTheKeptSocket() throws {
        let handover = ListenerHandover()
        let (socket, port) = try Self.listeningSocket()
        handover.beginReload()
        handover.release(socket, address: ("127.0.0.1", port))
        #expect(handover.take(address: ("127.0.0.1", port &+ 1)) == nil)
        #expect(Self.listens(port))
        #expect(handover.take(address: ("0.0.0.0", port)) == nil)
        #expect(!Self.listens(port))
        #expect(handover.keptCount == 0)
        handover.endReload()
    }

    /// Port 0 means "any free port": the next config gets one of its own. A second socket for an
    /// address already kept is closed, not put in the first one's place.
    @Test func anyPortAndASecondSocketForOneAddressAreClosed() throws {
        let handover = ListenerHandover()
        let (any, anyPort) = try Self.listeningSocket()
        let (first, port) = try Self.listeningSocket()
        defer { close(first) }
        let (second, secondPort) = try Self.listeningSocket()
        handover.beginReload()
        handover.release(any, address: ("127.0.0.1", 0))
        #expect(!Self.listens(anyPort))
        handover.release(first, address: ("127.0.0.1", port))
        handover.release(second, address: ("127.0.0.1", port))
        #expect(!Self.listens(secondPort))
        #expect(Self.listens(port))
        #expect(handover.take(address: ("127.0.0.1", port)) == first)
    }
}
