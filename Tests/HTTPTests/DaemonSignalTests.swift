import Foundation
import Testing
import TestSupport

/// `healthrouter run` as a process among others: closed standard streams, a log pipe whose reader
/// went away, signals sent early, Ctrl-\.
@Suite("run's process")
struct DaemonSignalTests {
    /// With standard output and error closed, the files the daemon opened next took descriptors 1
    /// and 2, and its log was written into its lock file (a second daemon then named the log as
    /// the holder's "pid").
    @Test func closedStandardStreamsLeaveTheLockFileItsPid() throws {
        let daemon = try DaemonProcess()
        daemon.shellSetup = "exec >&- 2>&-"
        let process = try daemon.launch()
        defer { if process.isRunning { daemon.stop() } }
        #expect(eventually(within: 10) { daemon.client.get("/health").status == 200 })
        for descriptor in 1...2 {
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/fd/\(descriptor)")
            #expect(target == "/dev/null", "descriptor \(descriptor)")
        }
        // A refused push is logged (a warning): into nothing.
        #expect(daemon.client.post("/ingest", "[]", token: "wrong-token").status == 401)
        let lock = try String(contentsOfFile: daemon.directory + "/state/daemon.lock", encoding: .utf8)
        #expect(lock == "\(process.processIdentifier)\n")
        #expect(daemon.stop() == 0)
    }

    /// A log read through a pipe whose reader went away (`run 2>&1 | tee`, a log shipper that
    /// restarted) killed the daemon with SIGPIPE at its next line.
    @Test func aLogPipeWithoutAReaderDoesNotStopTheDaemon() throws {
        let daemon = try DaemonProcess()
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DaemonProcess.executable)
        process.arguments = ["run", "--config", daemon.directory + "/config.yaml", "--log-level", "debug"]
        var environment = ProcessInfo.processInfo.environment
        environment["TEST_TOKEN"] = DaemonProcess.token
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        try pipe.fileHandleForReading.close()
        #expect(eventually(within: 10) { daemon.client.get("/health").status == 200 })
        for _ in 0..<3 { _ = daemon.client.post("/ingest", "[]", token: "wrong-token") }
        usleep(200_000)
        #expect(process.isRunning)
        #expect(daemon.client.get("/health").status == 200)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// A SIGTERM that comes while the config is still being read (here from a FIFO nobody has
    /// written yet) waits for the daemon: it starts, then stops cleanly. It used to meet the
    /// signal's default action (as a SIGHUP right after `systemctl start` did).
    @Test func aStopSentWhileTheConfigIsReadStopsCleanly() throws {
        let daemon = try DaemonProcess()
        let fifo = daemon.directory + "/config.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let config = try String(contentsOfFile: daemon.directory + "/config.yaml", encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DaemonProcess.executable)
        process.arguments = ["run", "--config", fifo]
        var environment = ProcessInfo.processInfo.environment
        environment["TEST_TOKEN"] = DaemonProcess.token
        process.environment = environment
        let log = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        usleep(500_000)
        kill(process.processIdentifier, SIGTERM)
        usleep(300_000)
        // Killed by it, the daemon would leave no reader for the config (and opening the FIFO to
        // write it would wait for good).
        guard process.isRunning else {
            Issue.record("the SIGTERM killed the daemon while it read its config")
            return
        }
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
        writer.write(Data(config.utf8))
        try writer.close()
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(output)")
        #expect(output.contains("stopped"))
    }

    /// A SIGTERM sent in the daemon's first milliseconds ends it (gracefully, or by the default
    /// action before `main` runs), never is lost: between the waiter ignoring the signals and
    /// Dispatch reading them, about 15 ms, one was dropped and the daemon ran on.
    @Test func aStopSentAsTheDaemonStartsIsNeverLost() throws {
        let daemon = try DaemonProcess()
        var lost = 0
        for attempt in 0..<20 {
            let process = try daemon.launch()
            usleep(UInt32(5_000 + (attempt % 8) * 4_000))
            kill(process.processIdentifier, SIGTERM)
            if !eventually(within: 5, { !process.isRunning }) {
                lost += 1
                daemon.stop(signal: SIGKILL)
            } else {
                process.waitUntilExit()
            }
        }
        #expect(lost == 0)
    }

    /// Under systemd (a `Type=notify` unit) the daemon says `READY=1` on the socket NOTIFY_SOCKET
    /// names once it serves, and not before: `systemctl start` returns then, and a `systemctl
    /// reload` right after it waits until then. Sent earlier, while the process still loaded its
    /// libraries (its first 20–50 ms, before `main` blocks the signals), a SIGHUP met its default
    /// action: the daemon ended, and systemd, which counts that a clean exit, did not restart it.
    @Test func readinessGoesToSystemdOnceTheDaemonServes() throws {
        var template = Array("/tmp/hr-notify.XXXXXX".utf8CString)
        let folder = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notify"
        let listener = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let daemon = try DaemonProcess()
        daemon.shellSetup = "export NOTIFY_SOCKET=\(path)"
        try daemon.launch()
        defer { daemon.stop() }
        var buffer = [UInt8](repeating: 0, count: 256)
        let received = recv(listener, &buffer, buffer.count, 0)
        let message = received > 0 ? String(decoding: buffer[..<received], as: UTF8.self) : ""
        #expect(message == "READY=1", "\(daemon.log)")
        // Told once it serves: a push is answered at once, and a SIGHUP reloads it.
        #expect(daemon.log.contains("info: running"), "\(daemon.log)")
        #expect(daemon.client.get("/health").status == 200)
        let pid = try #require(daemon.process?.processIdentifier)
        kill(pid, SIGHUP)
        #expect(eventually { daemon.log.contains("config reloaded") }, "\(daemon.log)")
        #expect(daemon.process?.isRunning == true)
        // Told once: a reload says nothing more.
        var more = timeval(tv_sec: 0, tv_usec: 300_000)
        setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &more, socklen_t(MemoryLayout<timeval>.size))
        #expect(recv(listener, &buffer, buffer.count, 0) <= 0)
    }

    /// Ctrl-\ (SIGQUIT) quits, as it quits any program: the Swift runtime's crash reporter took it
    /// for a crash, printed a backtrace saying so, and the daemon went on.
    @Test func sigquitQuits() throws {
        let daemon = try DaemonProcess()
        daemon.shellSetup = "ulimit -c 0"
        try daemon.start()
        let process = try #require(daemon.process)
        kill(process.processIdentifier, SIGQUIT)
        let ended = eventually(within: 10) { !process.isRunning }
        #expect(ended)
        if !ended { daemon.stop(signal: SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGQUIT)
        #expect(!daemon.log.contains("crashed"))
    }
}
