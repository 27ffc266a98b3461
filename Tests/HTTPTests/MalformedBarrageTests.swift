import Foundation
import HealthRouterCore
import Testing
@testable import HTTPPushSource
@testable import HTTPSink

/// A barrage of malformed requests leaves the daemon serving, with steady memory.
@Suite("malformed barrage")
struct MalformedBarrageTests {
    /// The resident memory of process `pid`: measured on the real daemon, since the test
    /// process runs other suites in parallel.
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    @Test func daemonKeepsServing() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { _ = daemon.stop(signal: SIGTERM) }
        let pid = try #require(daemon.process?.processIdentifier)
        let client = daemon.client
        let alice = DaemonProcess.token
        let good = HTTPTestClient.gzip(Array(PulsoProtocolTests.goldenSleep.utf8))
        let bodies: [([UInt8], [String])] = [
            (Array(good.prefix(good.count - 9)), ["Content-Encoding: gzip"]),
            ([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D], []),
            (Array((String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)).utf8), []),
            (Array(String(repeating: #"{"a":"#, count: 3_000).utf8), []),
            (Array("<xml/>".utf8), ["Content-Type: text/xml"]),
            (Array("a=b&c=d".utf8), ["Content-Type: application/x-www-form-urlencoded"]),
            (good, ["Content-Encoding: br"]),
        ]
        func round() {
            for (body, headers) in bodies {
                let reply = client.post("/ingest", body, token: alice, headers: headers)
                #expect([400, 413, 415].contains(reply.status), "\(reply.status) \(reply.body)")
                #expect(reply.body.hasPrefix(#"{"error": "#))
            }
            _ = client.raw("POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\nContent-Length: 100\r\n\r\n[1,", timeoutMicroseconds: 20_000)
            _ = client.raw("GARBAGE\r\n\r\n", timeoutMicroseconds: 200_000)
        }
        for _ in 0..<5 { round() }
        let before = Self.residentKiB(pid)
        for _ in 0..<20 { round() }
        let after = Self.residentKiB(pid)
        #expect(after - before < 20_000, "RSS grew from \(before) KiB to \(after) KiB")
        #expect(client.get("/health").status == 200)
        #expect(client.post("/ingest", PulsoProtocolTests.goldenSleep, token: alice).status == 200)
    }
}
