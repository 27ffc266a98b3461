import Foundation
import Testing
import TestSupport

/// A postgres or timescaledb sink whose connection reaches another machine without TLS (libpq's
/// default `sslmode=prefer` falls back to plain text silently) says so once, naming the sink, the
/// address and the fix; one over loopback, or encrypted, does not. The throwaway server listens on
/// 127.0.0.1 only: a relay on another address of this machine stands for the network.
@Suite struct PostgresPlainTextWarningTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PG_URL"] != nil || ProcessInfo.processInfo.environment["CI"] == "true",
                   "set PG_URL to run: scripts/with-postgres.sh (make test)"))
    func aSinkReachingAnotherMachineInPlainTextIsWarnedAbout() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(environment["PG_URL"], "PG_URL is not set: run the tests under scripts/with-postgres.sh (make test)")
        let port = try #require(environment["PG_PORT"].flatMap(Int.init))
        guard let address = TCPRelay.nonLoopbackIPv4Address() else {
            withKnownIssue("this machine has no IPv4 address but loopback: the plain-text warning of a postgres sink was not shown") {
                Issue.record("no address to relay PostgreSQL on")
            }
            return
        }
        let relay = try TCPRelay(address: address, targetPort: port)
        let remote = url.replacingOccurrences(of: "host=127.0.0.1", with: "host=\(address)")
            .replacingOccurrences(of: "port=\(port)", with: "port=\(relay.port)")
        let directory = makeTemporaryDirectory()
        func check(_ url: String, type: String = "postgres") throws -> CommandRunner.Result {
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
            let config = try writeConfig("""
                state_directory: \(directory)/state
                sinks:
                  db: { type: \(type), url: "\(url)", schema: \(schema), user_id: 00000000-0000-4000-8000-000000000001\
                \(type == "timescaledb" ? ", require_timescaledb: false" : "") }
                """, in: directory)
            return try CommandRunner.run(["check", "--connect", "--config", config], in: directory)
        }
        let warning = "is not encrypted: the health data the sink writes crosses the network readable and changeable on the way "
            + "plugin=db sink=db hint=put sslmode=verify-full and sslrootcert=/path/to/ca.pem (the CA of the server's certificate) "
            + "in the url"
        // libpq's silent fallback (`allow`, as `prefer` with a server that offers no TLS) is warned about.
        let fallback = remote.replacingOccurrences(of: "sslmode=disable", with: "sslmode=allow")
        for type in ["postgres", "timescaledb"] {
            let plain = try check(fallback, type: type)
            #expect(plain.status == 0 && plain.stdout.contains("db: connected"), "\(plain.stdout)\(plain.stderr)")
            #expect(plain.stderr.contains("warning: the connection to \(address) \(warning)"), "\(plain.stderr)")
            #expect(plain.stderr.components(separatedBy: "not encrypted").count == 2, "\(plain.stderr)")
        }
        // A plain connection the url asks for (`sslmode=disable`: a tailnet or WireGuard between) is the user's choice.
        let chosen = try check(remote)
        #expect(chosen.status == 0 && chosen.stdout.contains("db: connected") && !chosen.stderr.contains("not encrypted"),
                "\(chosen.stderr)")
        // Over loopback: no network to cross.
        let local = try check(url)
        #expect(local.status == 0 && !local.stderr.contains("not encrypted"), "\(local.stderr)")
        // Encrypted through the same relay (when the server speaks TLS: scripts/with-postgres.sh with openssl).
        if environment["PG_TLS_ROOT_CERT"] != nil {
            let encrypted = try check(remote.replacingOccurrences(of: "sslmode=disable", with: "sslmode=require"))
            #expect(encrypted.status == 0 && !encrypted.stderr.contains("not encrypted"), "\(encrypted.stderr)")
        }
    }
}
