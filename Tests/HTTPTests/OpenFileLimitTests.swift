import Foundation
import Testing
import TestSupport

/// `healthrouter run` weighs the open-file limit against what its config may need (64, 16 a
/// sqlite sink, an http_push source's max_connections and 8: 344 for `DaemonProcess`'s config):
/// a soft limit below it is raised (nothing in the process uses select()), a hard one below it is
/// said at the start with what to do, where the daemon learnt it only when a client could not
/// be accepted. `check` says the latter too.
@Suite("open-file limit at the start")
struct OpenFileLimitTests {
    /// The soft open-file limit of the process `pid` (/proc/PID/limits).
    static func softLimit(_ pid: Int32) -> Int? {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
    }

    @Test func aSoftLimitBelowTheNeedIsRaisedAndTheClientsAreTaken() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_max >= 344, "the test needs a hard limit of 344 open files (ulimit -Hn)")
        let daemon = try DaemonProcess()
        // About 27 descriptors are open once the daemon runs: at 40, a dozen connections would be left.
        daemon.shellSetup = "ulimit -Sn 40"
        try daemon.start()
        defer { daemon.stop() }
        let pid = try #require(daemon.process?.processIdentifier)
        #expect(daemon.log.contains("info: raised the open-file limit to what the config may need open_files_limit=344 was=40 need=344"),
                "\(daemon.log)")
        #expect(Self.softLimit(pid) == 344)
        #expect(!daemon.log.contains("below what the config may need"), "\(daemon.log)")
        // 30 connections at once (of the 32 one address may open) are taken, and a push beside them answered.
        var held: [RawConnection] = []
        for _ in 0..<30 { held.append(try #require(daemon.client.connection())) }
        defer { for connection in held { connection.close() } }
        let batch = #"[{"uuid":"NOFILE-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(daemon.client.post("/ingest", batch, token: DaemonProcess.token).status == 200)
        usleep(300_000)
        #expect(!daemon.log.contains("no file descriptor left"), "\(daemon.log)")
    }

    @Test func aHardLimitBelowTheNeedIsSaidAtTheStart() throws {
        let daemon = try DaemonProcess()
        daemon.shellSetup = "ulimit -n 40"
        try daemon.start()
        defer { daemon.stop() }
        // Before any client came.
        #expect(daemon.log.contains("warning: the open-file limit is below what the config may need: connections beyond it "
                                    + "wait until one closes open_files_limit=40 hint=raise it to 344: LimitNOFILE=344 in the "
                                    + "[Service] section of the systemd unit, or ulimit -n 344 in the shell that starts "
                                    + "healthrouter; or lower max_connections need=344"), "\(daemon.log)")
        #expect(!daemon.log.contains("raised the open-file limit"), "\(daemon.log)")
        // `check` in such a shell says so as well.
        let checked = try CommandRunner.run(["check", "--config", daemon.directory + "/config.yaml"], in: daemon.directory,
                                            environment: ["TEST_TOKEN": DaemonProcess.token], shellSetup: "ulimit -n 40")
        #expect(checked.status == 0, "\(checked)")
        #expect(checked.stdout.contains("warning: the sources and sinks may hold 344 files at once (connections included), and "
                                        + "the open-file limit here is 40: raise it to 344: LimitNOFILE=344"), "\(checked.stdout)")
        #expect(checked.stdout.contains("1 warning(s) above"), "\(checked.stdout)")
    }
}
