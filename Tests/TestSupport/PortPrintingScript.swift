import Foundation

/// A Python script run as a child process (`python3 -c SCRIPT ARGUMENTS…`) that listens on a
/// loopback port of its choosing and prints that port as its first line: the stand-in servers and
/// proxies of the tests. `start` returns once the port is printed; `stop` SIGKILLs the process
/// (idempotent), which its owner calls when it goes away.
public final class PortPrintingScript: Sendable {
    public let port: Int
    private let process: Process

    /// The script printed no port (a Python error, for one): what it printed instead.
    public struct Failed: Error, CustomStringConvertible {
        public var output: String
        public var description: String { "the test's Python script printed no port: \(output)" }
    }

    public init(_ script: String, arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failed(output: line)
        }
        self.process = process
        self.port = port
    }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
