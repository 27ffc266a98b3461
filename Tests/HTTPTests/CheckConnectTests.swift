import Foundation
import HealthRouterCore
import Synchronization
import Testing
import TestSupport

/// `healthrouter check --connect` probes an `http` sink with `GET /health`, and its token with
/// `GET /latest`.
@Suite("check --connect with an http sink", .serialized)
struct CheckConnectTests {
    @Test func probesHealthAndTheToken() throws {
        let peer = try DaemonProcess()
        try peer.start()
        defer { peer.stop() }
        let directory = TestScratch.path + "check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func check(port: UInt16, token: String? = DaemonProcess.token) throws -> (Int32, String) {
            try """
            state_directory: \(directory)/state
            sinks:
              mirror:
                type: http
                url: http://127.0.0.1:\(port)
            \(token.map { "    token: \($0)" } ?? "")
            routes:
              - types: ["*"]
                to: [mirror]
            """.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
            let result = try CommandRunner.run(["check", "--connect", "--config", directory + "/config.yaml"], in: directory)
            return (result.status, result.stdout + result.stderr)
        }
        let reachable = try check(port: peer.port)
        #expect(reachable.0 == 0, "\(reachable.1)")
        #expect(reachable.1.contains("mirror: connected"))
        let unreachable = try check(port: peer.port == 60000 ? 59999 : peer.port + 1)
        #expect(unreachable.0 == 1, "\(unreachable.1)")
        #expect(unreachable.1.contains("FAILED"))
        // A token the receiver does not take, or none, is a config error (78), said before any
        // batch is sent: /health is open, so that both were "connected".
        for token in ["not-the-token", nil] {
            let refused = try check(port: peer.port, token: token)
            #expect(refused.0 == 78, "\(refused.1)")
            #expect(refused.1.contains("mirror: FAILED: misconfigured: http://127.0.0.1:\(peer.port)/latest answered 401 "
                                           + #"{"error": "unauthorized"} (check the sink's token)"#), "\(refused.1)")
        }
    }
}
