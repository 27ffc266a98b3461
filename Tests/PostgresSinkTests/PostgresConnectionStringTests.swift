import Testing
import HealthRouterCore
@testable import PostgresClient
import PostgresSink
import TimescaleDBSink

/// A password holding an unencoded `/` or `?` (or `@`) makes libpq read a piece of it as the port,
/// host or database, and quote it in its messages (`invalid integer value "s3cr3t" for connection
/// option "port"`), which ended up in logs and `status`. Such a url is a config error that says
/// to percent-encode, quoting nothing of it, and is never given to libpq.
@Suite struct PostgresConnectionStringTests {
    static let secret = "s3cr3t"

    @Test(arguments: [
        "postgres://hr_password_test:s3cr3t/pass@127.0.0.1:60000/c1",
        "postgresql://hr_password_test:s3cr3t/pass@127.0.0.1/c1?sslmode=disable",
        "postgres://me:s3cr3t?pass/x@127.0.0.1:5432/c1",
        "postgres://me:s3cr3t@pass@127.0.0.1:5432/c1",
        "postgres://me:s3cr3t#x/y@127.0.0.1/c1",
    ])
    func aPasswordLibpqWouldSplitIsAConfigErrorThatQuotesNothing(_ url: String) throws {
        let problem = try #require(PostgresConnectionString.problem(url))
        #expect(problem.contains("percent-encode"))
        #expect(!problem.contains(Self.secret) && !problem.contains("127.0.0.1"))
        if !url.contains("s3cr3t@pass") { #expect(problem.contains("%2F")) }
        #expect {
            try PostgresConnection(url: url)
        } throws: { error in
            let text = "\(error)"
            return !text.contains(Self.secret) && (error as? PostgresError)?.misconfiguration != nil
        }
        // Not through the config (a sink made in code): the sink's error quotes none of it either.
        for sink in PostgresTestDatabase.bothSinks(url: url, schema: "unused") {
            #expect {
                _ = try sink.prepare()
            } throws: { error in
                guard case SinkError.misconfigured(let reason) = error else { return false }
                return !reason.contains(Self.secret) && reason.contains("percent-encode")
            }
        }
    }

    /// A `%` that is no escape (a password holding one as written), or a url libpq quotes whole:
    /// a config error that quotes none of the password (libpq's own message did).
    @Test(arguments: [
        "postgres://me:s3cr3t%zzPW@127.0.0.1:5432/c1",
        "postgres://me:100%s3cr3t@127.0.0.1/c1",
        "postgres://me:s3cr3t%@127.0.0.1/c1",
        "postgres://me:s3cr3t@[::1/c1",
        "host=127.0.0.1 user=me password=Pass s3cr3t dbname=c1",
        "postgresql://me@127.0.0.1/c1?password=s3cr3t%zzPW",
    ])
    func aURLLibpqQuotesShowsNoPassword(_ url: String) throws {
        let problem = try #require(PostgresConnectionString.problem(url))
        #expect(!problem.contains(Self.secret), "\(problem)")
        if url.contains("%") && !url.contains("?password") { #expect(problem.contains("%25"), "\(problem)") }
    }

    @Test(arguments: [
        "postgres://me:s3cr3t%2Fpass@127.0.0.1:5432/c1",
        "postgres://me:pa?ss@127.0.0.1/c1",
        "postgres://127.0.0.1/c1?user=me@server&sslmode=disable",
        "postgres://me@127.0.0.1/c1?sslmode=verify-full&sslrootcert=/etc/ca@2/root.pem",
        "postgres://me@127.0.0.1",
        "host=127.0.0.1 password=a@b/c dbname=c1",
        // An `@` in the database's name (psql connects to `my@db` so).
        "postgres://postgres@127.0.0.1:61000/my@db",
        "postgres://localhost:5432/my@db",
        "postgres://[::1]/my@db",
        "postgres://[::1]:5432/my@db?sslmode=disable",
    ])
    func wellFormedURLsAreTaken(_ url: String) {
        #expect(PostgresConnectionString.problem(url) == nil)
    }

    /// What libpq read as host, port or database is never shown when it holds an `@` (a piece of a password).
    @Test func anEndpointHoldingAnAtIsNotShown() {
        #expect(PostgresConnection.describe(host: "hr_password_test", port: "s3cr3t", db: "pass@127.0.0.1:60000/c1") == "PostgreSQL")
        #expect(PostgresConnection.describe(host: "pass@127.0.0.1", port: "5432", db: "c1") == "PostgreSQL")
        #expect(PostgresConnection.describe(host: "127.0.0.1", port: "5432", db: "c1") == "127.0.0.1:5432/c1")
    }
}
