import Foundation
import HealthRouterCore
import Synchronization
import Testing
import TestSupport

/// `healthrouter check --connect` probes an `http` sink with `GET /health`.
@Suite("check --connect with an http sink", .serialized)
struct CheckConnectTests {
    @Test func probesHealth() throws {
        let peer = try DaemonProcess()
        try peer.start()
        defer { peer.stop() }
        let directory = TestScratch.path + "check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func check(port: UInt16) throws -> (Int32, String) {
            try """
            state_directory: \(directory)/state
            sinks:
              mirror:
                type: http
                url: http://127.0.0.1:\(port)
            routes:
              - types: ["*"]
                to: [mirror]
            """.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: DaemonProcess.executable)
            process.arguments = ["check", "--connect", "--config", directory + "/config.yaml"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
        let reachable = try check(port: peer.port)
        #expect(reachable.0 == 0, "\(reachable.1)")
        #expect(reachable.1.contains("mirror: connected"))
        let unreachable = try check(port: peer.port == 60000 ? 59999 : peer.port + 1)
        #expect(unreachable.0 == 1, "\(unreachable.1)")
        #expect(unreachable.1.contains("FAILED"))
    }
}
