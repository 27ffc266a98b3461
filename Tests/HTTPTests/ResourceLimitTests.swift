import Foundation
import Synchronization
import HealthRouterCore
import Testing
import TestSupport
@testable import HTTPPushSource

/// The limits that keep many or slow clients from exhausting the server, over real loopback
/// connections: the memory budget for bodies being received, the connections per address,
/// the deadline for a request's headers.
@Suite("http_push resource limits")
struct ResourceLimitTests {
    let alice = PushServerFixture.tokens["alice"]!

    /// A Pulso batch of one heart-rate sample at 08:`minute`, padded with spaces to exactly `size` bytes.
    static func paddedBatch(minute: Int, size: Int) -> [UInt8] {
        let time = "2026-07-06T08:\(minute < 10 ? "0" : "")\(minute):00Z"
        let sample = Array(#"[{"uuid":"M\#(minute)","type":"heartRate","start":"\#(time)","end":"\#(time)","value":60,"source":"W"}"#.utf8)
        return sample + [UInt8](repeating: 0x20, count: size - sample.count - 1) + [UInt8(ascii: "]")]
    }

    /// The head of a push of `length` bytes that waits for `100 Continue` before its body.
    func uploadHead(length: Int) -> String {
        "POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(length)\r\nExpect: 100-continue\r\n\r\n"
    }

    @Test func uploadsBeyondTheMemoryBudgetAreRefusedBeforeTheirBodies() throws {
        let server = try PushServerFixture { $0.maxUploadMemoryMiB = 1 }
        let size = 700 << 10
        // The first push's headers take 700 KiB of the 1 MiB budget; the server asks for its body.
        let first = try #require(server.client.connection())
        first.send(uploadHead(length: size))
        #expect(first.receiveResponse().text.hasPrefix("HTTP/1.1 100 "))
        #expect(server.source.uploadBytesInUse == size)
        // Three more at the same time do not fit: 503 with Retry-After and a JSON body, sent
        // while their bodies are still unsent.
        let others = try (0..<3).map { _ in try #require(server.client.connection()) }
        for other in others { other.send(uploadHead(length: size)) }
        for other in others {
            let reply = other.receiveResponse()
            #expect(reply.text.hasPrefix("HTTP/1.1 503 "))
            #expect(reply.text.contains("Retry-After: 10\r\n"))
            #expect(reply.text.hasSuffix(#"{"error": "too many uploads at once"}"#))
        }
        #expect(server.source.uploadBytesInUse == size)
        // A small push fits beside the first.
        let small = server.client.post("/ingest", Self.paddedBatch(minute: 1, size: 1000), token: alice)
        #expect(small.status == 200)
        // The first, within the budget, goes through.
        first.send(Self.paddedBatch(minute: 2, size: size))
        let done = first.receiveResponse()
        #expect(done.text.hasPrefix("HTTP/1.1 200 "))
        #expect(done.text.hasSuffix(#"{"received": 1, "new": 1, "deleted": 0}"#))
        // Its share returns when it completes, and so does that of a push abandoned halfway.
        #expect(eventually { server.source.uploadBytesInUse == 0 })
        let abandoned = try #require(server.client.connection())
        abandoned.send(uploadHead(length: size))
        #expect(abandoned.receiveResponse().text.hasPrefix("HTTP/1.1 100 "))
        abandoned.send(Array(Self.paddedBatch(minute: 3, size: size).prefix(size / 2)))
        #expect(server.source.uploadBytesInUse == size)
        abandoned.close()
        #expect(eventually { server.source.uploadBytesInUse == 0 })
        // Afterwards pushes as large as the first succeed again.
        let again = server.client.post("/ingest", Self.paddedBatch(minute: 4, size: size), token: alice)
        #expect(again.status == 200)
        #expect(again.body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        // A body larger than the whole budget could never fit: 413, not a 503 to retry forever.
        let tooLarge = server.client.raw(uploadHead(length: 2 << 20))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.body == #"{"error": "bad content length"}"#)
        #expect(try server.journalItems().count == 3)
    }

    /// A gzip body that fits the budget with what it inflates to is taken, even when a first
    /// guess of its inflated size (four times the compressed) would not fit: with 1 MiB, a
    /// 550 KB body of hex (about 300 KB gzipped) gets 200, not 413.
    @Test func aGzipBodyThatFitsIsTakenWhateverTheFirstGuess() throws {
        let server = try PushServerFixture { $0.maxUploadMemoryMiB = 1 }
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<550_000).map { _ in "0123456789abcdef".randomElement(using: &generator)! }
        let body = Array(#"[{"uuid":"HEX-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W","metadata":{"blob":""#.utf8)
            + Array(String(hex).utf8) + Array(#""}}]"#.utf8)
        let compressed = HTTPTestClient.gzip(body)
        #expect(compressed.count * 4 > (1 << 20) - compressed.count && compressed.count + body.count < 1 << 20,
                "\(compressed.count) gzipped, \(body.count) inflated")
        let reply = server.client.post("/ingest", compressed, token: alice, headers: ["Content-Encoding: gzip"])
        #expect(reply.status == 200, "\(reply)")
        #expect(eventually { server.source.uploadBytesInUse == 0 })
    }

    /// Gzip bodies count what they inflate to, not only their few compressed bytes: bombs that
    /// do not fit beside the other uploads are answered 503 (and take nothing from the others),
    /// one that could never fit 413; a normal push still fits; every push answered 200 is in
    /// the journal.
    @Test func gzipBodiesCountWhatTheyInflateToAgainstTheBudget() throws {
        let server = try PushServerFixture { $0.maxUploadMemoryMiB = 8 }
        let client = server.client, token = alice
        // Each inflates to 6 MiB from a few KiB: two never fit in 8 MiB together.
        @Sendable func bomb(minute: Int) -> [UInt8] { HTTPTestClient.gzip(Self.paddedBatch(minute: minute, size: 6 << 20)) }
        @Sendable func gzipHead(length: Int) -> String {
            "POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Encoding: gzip\r\n"
                + "Content-Length: \(length)\r\n\r\n"
        }
        // A plain upload holds 3 MiB of the budget while its body is unsent.
        let size = 3 << 20
        let holder = try #require(server.client.connection())
        holder.send(uploadHead(length: size))
        #expect(holder.receiveResponse().text.hasPrefix("HTTP/1.1 100 "))
        // Eight bombs at once, none of which fits beside it: 503 with Retry-After, each.
        let statuses = Mutex([Int]())
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let body = bomb(minute: 10 + index)
            let reply = client.raw(gzipHead(length: body.count), body: body)
            statuses.withLock { $0.append(reply.status) }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 503, count: 8))
        let busy = try #require(server.client.connection())
        let body = bomb(minute: 20)
        busy.send(Array(gzipHead(length: body.count).utf8) + body)
        let refused = busy.receiveResponse().text
        #expect(refused.hasPrefix("HTTP/1.1 503 ") && refused.contains("Retry-After: 10\r\n"), "\(refused)")
        #expect(refused.hasSuffix(#"{"error": "too many uploads at once"}"#))
        #expect(eventually { server.source.uploadBytesInUse == size })
        // A normal push fits beside the upload.
        let normal = server.client.post("/ingest", Self.paddedBatch(minute: 1, size: 2000), token: alice, gzip: true)
        #expect(normal.status == 200)
        #expect(normal.body == #"{"received": 1, "new": 1, "deleted": 0}"#)
        holder.send(Self.paddedBatch(minute: 2, size: size))
        #expect(holder.receiveResponse().text.hasSuffix(#"{"received": 1, "new": 1, "deleted": 0}"#))
        #expect(eventually { server.source.uploadBytesInUse == 0 })
        // Alone, a bomb fits; eight at once take turns (what does not fit now is 503).
        #expect(server.client.post("/ingest", bomb(minute: 3), token: alice, headers: ["Content-Encoding: gzip"]).status == 200)
        let accepted = Mutex(Set(["M1", "M2", "M3"]))
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let reply = client.post("/ingest", bomb(minute: 30 + index), token: token, headers: ["Content-Encoding: gzip"])
            #expect(reply.status == 200 || reply.status == 503, "\(reply)")
            if reply.status == 200 { _ = accepted.withLock { $0.insert("M\(30 + index)") } }
        }
        // One that inflates past the whole budget could never fit: 413, not a 503 to retry forever.
        let tooLarge = server.client.post("/ingest", HTTPTestClient.gzip(Self.paddedBatch(minute: 4, size: 9 << 20)),
                                          token: alice, headers: ["Content-Encoding: gzip"])
        #expect(tooLarge.status == 413)
        #expect(tooLarge.body == #"{"error": "body too large"}"#)
        #expect(eventually { server.source.uploadBytesInUse == 0 })
        // Every push answered 200 is in the journal, and nothing else.
        let stored = try server.journalItems().compactMap { item -> String? in
            if case .sample(let sample) = item { sample.id } else { nil }
        }
        #expect(Set(stored) == accepted.withLock { $0 } && stored.count == accepted.withLock { $0.count })
    }

    @Test func connectionsBeyondThePerAddressLimitAreClosed() throws {
        let server = try PushServerFixture { $0.maxConnectionsPerAddress = 2 }
        // Pushes keep their connection open (a reply sent before the body closes it).
        let body = Self.paddedBatch(minute: 1, size: 200)
        let push = "POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\nContent-Length: \(body.count)\r\n\r\n"
        let first = try #require(server.client.connection())
        let second = try #require(server.client.connection())
        // The first answers, so the server has accepted both before the third arrives.
        first.send(Array(push.utf8) + body)
        #expect(first.receiveResponse().text.hasPrefix("HTTP/1.1 200 "))
        // A third from 127.0.0.1 is accepted by the kernel and closed by the server unanswered.
        let third = try #require(server.client.connection())
        third.send(Array(push.utf8) + body)
        let refused = third.receiveResponse(seconds: 5)
        #expect(refused.closed)
        #expect(refused.text.isEmpty)
        // The earlier connections still work.
        for connection in [first, second] {
            connection.send(Array(push.utf8) + body)
            let reply = connection.receiveResponse()
            #expect(reply.text.hasPrefix("HTTP/1.1 200 "))
            #expect(reply.text.hasSuffix(#"{"received": 1, "new": 0, "deleted": 0}"#))
        }
        // Once one closes, a new connection from the same address gets its place.
        first.close()
        #expect(eventually { server.client.get("/health").status == 200 })
    }

    @Test func headersTricklingInPastTheDeadlineCloseTheConnection() throws {
        let server = try PushServerFixture { $0.headerTimeout = .seconds(1) }
        // One header line every 200 ms keeps the connection busy but never finishes the headers.
        let slow = try #require(server.client.connection())
        let opened = Date()
        slow.send("POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\n")
        var closed = false
        for line in 0..<25 where !closed {
            slow.send("X-Slow-\(line): 1\r\n")
            closed = slow.receiveResponse(seconds: 0.2).closed
        }
        let lasted = Date().timeIntervalSince(opened)
        #expect(closed)
        #expect(lasted >= 0.9 && lasted < 3, "closed after \(lasted) s")
        #expect(server.client.get("/health").status == 200)
        // The deadline covers the headers only: a body may take longer.
        let body = Self.paddedBatch(minute: 1, size: 200)
        let push = "POST /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice)\r\nContent-Length: \(body.count)\r\n\r\n"
        let patient = try #require(server.client.connection())
        patient.send(Array(push.utf8) + body.prefix(100))
        usleep(1_500_000)
        patient.send(Array(body.dropFirst(100)))
        #expect(patient.receiveResponse().text.hasSuffix(#"{"received": 1, "new": 1, "deleted": 0}"#))
        // After the reply the deadline runs again, for the next request's headers.
        #expect(patient.receiveResponse(seconds: 3).closed)
    }
}

/// A server in a process that holds many files (an ndjson sink's, one a type) still answers:
/// libmicrohttpd's select() dropped every connection whose descriptor was 1024 or more.
@Suite("http_push with many open files")
struct ManyOpenFilesTests {
    @Test func connectionsNumberedPast1024AreAnswered() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 1400 {
            try #require(limit.rlim_max >= 1400, "the test needs a hard limit of 1400 open files (ulimit -Hn)")
            limit.rlim_cur = 1400
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let server = try PushServerFixture()
        // Take every descriptor below 1100, so the next connection the server accepts is past 1024.
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        while true {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            held.append(descriptor)
            if descriptor >= 1100 { break }
        }
        let batch = #"[{"uuid":"FD-1","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        let reply = server.client.post("/ingest", Array(batch.utf8), token: PushServerFixture.tokens["alice"]!)
        #expect(reply.status == 200, "\(reply)")
        #expect(reply.body == #"{"received": 1, "new": 1, "deleted": 0}"#)
    }
}

/// A daemon whose process runs out of file descriptors (a low `ulimit -n`, many clients at once)
/// keeps running: the clients it cannot take yet wait, it says why and what to do, and it serves
/// again once connections close. libmicrohttpd's listening thread polled the listening socket again
/// after each accept() that failed with EMFILE, and spun at full CPU for as long as it lasted.
@Suite("run out of file descriptors")
struct DescriptorExhaustionTests {
    /// The CPU time the process `pid` has used so far, in seconds (utime and stime of /proc/PID/stat).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return 0 }
        // The fields after the command's name: state is the first (3), utime the 12th (14), stime the 13th.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func theDaemonWaitsForADescriptorWithoutSpinningAndServesAgain() throws {
        let daemon = try DaemonProcess()
        // About 27 descriptors are open once the daemon runs: a dozen are left for connections,
        // fewer than the 32 one address may open.
        daemon.shellSetup = "ulimit -n 40"
        try daemon.start()
        defer { daemon.stop() }
        let pid = try #require(daemon.process?.processIdentifier)
        // More connections than descriptors: the kernel queues those the daemon cannot accept.
        var held: [RawConnection] = []
        for _ in 0..<30 { held.append(try #require(daemon.client.connection())) }
        #expect(eventually { daemon.log.contains("no file descriptor left") }, "\(daemon.log)")
        let before = Self.cpuSeconds(pid)
        usleep(2_000_000)
        let used = Self.cpuSeconds(pid) - before
        #expect(used < 0.5, "the daemon used \(used) s of CPU in 2 s while it could not accept")
        #expect(daemon.log.contains("open_files_limit=40"), "\(daemon.log)")
        #expect(daemon.log.contains("hint=raise the limit of open files (systemd: LimitNOFILE= in the service; a shell: "
                                    + "ulimit -n), or lower max_connections"), "\(daemon.log)")
        // Once the connections close, the daemon takes pushes again.
        for connection in held { connection.close() }
        let batch = #"[{"uuid":"FD-2","type":"heartRate","start":"2026-07-06T08:00:00Z","end":"2026-07-06T08:00:00Z","value":60,"source":"W"}]"#
        #expect(eventually(within: 10) { daemon.client.post("/ingest", batch, token: DaemonProcess.token).status == 200 })
        #expect(daemon.process?.isRunning == true)
    }
}
