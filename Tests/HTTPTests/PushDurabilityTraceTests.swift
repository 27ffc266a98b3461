import Foundation
import Testing
import TestSupport

/// A push is answered 200 only once the journal's commit of it reached the disk, seen in the
/// system calls of a real daemon (strace): a kill -9 after the 200 loses nothing the page cache
/// holds either way, only a power cut would tell, so only the order of the calls shows it.
@Suite("push durability, traced", .serialized)
struct PushDurabilityTraceTests {
    @Test(.enabled(if: SyscallTrace.isAvailable, "needs strace, and ptrace allowed"))
    func aPushIsAnsweredAfterTheJournalSyncedIt() throws {
        let daemon = try DaemonProcess()
        let output = daemon.directory + "/trace.txt"
        daemon.tracer = SyscallTrace.tracer(["recvfrom", "read", "sendmsg", "sendto", "writev", "write", "pwrite64", "fsync", "fdatasync"],
                                            into: output)
        try daemon.start()
        let batch = DaemonProcess.batch(prefix: "T", count: 3)
        let reply = daemon.client.post("/ingest", batch.body, token: DaemonProcess.token)
        #expect(reply.status == 200, "\(reply.body)")
        daemon.stop(signal: SIGTERM)
        #expect(try daemon.sinkIds() == Set(batch.ids), "\(daemon.log)")

        let trace = try SyscallTrace(contentsOf: output)
        let request = try #require(trace.calls.first { $0.name == "recvfrom" && $0.arguments.contains("POST /ingest") },
                                   "no request in the trace")
        let socket = try #require(request.path)
        let answer = try #require(trace.calls.first {
            ["sendmsg", "sendto", "writev", "write"].contains($0.name) && $0.path == socket && $0.started > request.started
                && $0.arguments.contains("HTTP/1.1 200")
        }, "no 200 on \(socket) in the trace")
        // The frames the request's thread wrote into the journal's log (its commit; a sink worker
        // may write its own meanwhile) are synced before the 200. (A log that starts anew has its
        // header synced first even at synchronous=NORMAL: not that sync.)
        let log = daemon.directory + "/state/journal.sqlite-wal"
        let frames = try #require(trace.calls(["pwrite64"]) { $0 == log }.last {
            $0.thread == request.thread && $0.started > request.started && $0.started < answer.started
        },
                                  "the journal's log was not written between the request and its 200")
        // Synced by that thread (its commit's): a sink worker's sync of the log in between would
        // leave the request's commit as volatile as before.
        #expect(trace.calls(["fsync", "fdatasync"]) { $0 == log }.contains {
            $0.thread == request.thread && $0.started > frames.returned! && $0.returned! < answer.started
        },
                "the 200 (trace line \(answer.started + 1)) was sent before the journal's log synced what it wrote (trace line \(frames.started + 1))")
    }
}
