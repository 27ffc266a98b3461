import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
import TimescaleDBSink
import TestSupport

/// The libpq client against the throwaway server of `scripts/with-postgres.sh`: TLS with a verified
/// server certificate, a password in a `postgres://` URL, and statement timeouts.
@Suite struct PostgresConnectionTests {
    /// The ids of the samples `sink` holds, read back.
    static func storedIds(_ sink: TimescaleDBSink) throws -> [String] {
        var ids: [String] = []
        try sink.readBack(batchSize: 100) { ids.append($0.id) }
        return ids
    }

    /// `text` for a URL's user or password part (RFC 3986 unreserved characters stay).
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn:
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
    }

    /// Every connection has TCP keepalives and a user timeout (a server that vanished mid-call fails
    /// the call within about a minute: a frozen one left a sink waiting without a word), unless
    /// the URL sets its own.
    @Test func connectionsNoticeAServerThatVanished() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        #expect(connection.option("keepalives") == "1" && connection.option("keepalives_idle") == "30")
        #expect(connection.option("tcp_user_timeout") == "60000")
        let own = try PostgresConnection(url: url + " keepalives_idle=5")
        defer { own.close() }
        #expect(own.option("keepalives_idle") == "5")
    }

    /// The server's notices reach the connection's handler (a sink logs them), each on one line.
    @Test func noticesGoToTheHandlerOnOneLine() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        final class Notices: @unchecked Sendable { var lines: [String] = [] }
        let notices = Notices()
        connection.onNotice = { notices.lines.append($0) }
        try connection.execute("DO $$ BEGIN RAISE WARNING 'first line%second line', E'\\n'; END $$")
        #expect(notices.lines.count == 1)
        #expect(notices.lines.first?.contains("WARNING:  first line; second line") == true, "\(notices.lines)")
    }

    /// A notice the server sends while the session starts (a WARNING at login: here the
    /// database's recorded collation version is not one its library gives) reaches the handler
    /// given to `init`. Before, libpq's default processor wrote it to standard error as bare text,
    /// in the middle of a JSON log.
    @Test func aNoticeAtLoginGoesToTheHandlerGiven() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let database = "hr_login_notice_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let admin = try PostgresConnection(url: url)
        defer {
            _ = try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            admin.close()
        }
        try admin.execute("CREATE DATABASE \(database)")
        try admin.execute("UPDATE pg_database SET datcollversion = '0.bogus' WHERE datname = '\(database)'")
        final class Notices: @unchecked Sendable { var lines: [String] = [] }
        let notices = Notices()
        let connection = try PostgresConnection(url: url + " dbname=\(database)", onNotice: { notices.lines.append($0) })
        defer { connection.close() }
        #expect(notices.lines.count == 1, "\(notices.lines)")
        #expect(notices.lines.first?.contains("WARNING:  database \"\(database)\"") == true
                    && notices.lines.first?.contains("collation version") == true, "\(notices.lines)")
        // The session works as any other.
        #expect(try connection.execute("SELECT current_database()").text(0, 0) == database)
    }

    /// A URL listing several hosts passes over one that does not answer within `connect_timeout`
    /// to the next (a standby's address down), as libpq's own connect does.
    @Test func ofSeveralHostsOneThatDoesNotAnswerIsPassedOver() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let admin = try PostgresConnection(url: url)
        let port = try #require(admin.option("port"))
        admin.close()
        let (silent, silentPort) = try #require(SilentListener.open())
        defer { close(silent) }
        let started = Date()
        let connection = try PostgresConnection(
            url: url + " host=127.0.0.1,127.0.0.1 port=\(silentPort),\(port)", connectTimeoutSeconds: 2)
        defer { connection.close() }
        #expect(try connection.query("SELECT 1").int(0, 0) == 1)
        #expect(Date().timeIntervalSince(started) < 8)
    }

    /// `PGCONNECT_TIMEOUT` in the environment is the connect timeout, as libpq's other `PG…`
    /// variables are its defaults (healthrouter's 10 s took its place): a server that does not
    /// answer fails `check --connect` after 2 s, not 10.
    @Test func theEnvironmentsConnectTimeoutIsKept() throws {
        guard PostgresTestDatabase.url != nil else { return }
        let (silent, silentPort) = try #require(SilentListener.open())
        defer { close(silent) }
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              pg:
                type: postgres
                url: "host=127.0.0.1 port=\(silentPort) dbname=postgres user=postgres sslmode=disable"
                user_id: 00000000-0000-4000-8000-000000000001
            """, in: directory)
        let started = Date()
        let result = try CommandRunner.run(["check", "--connect", "--config", config], in: directory,
                                           environment: ["PGCONNECT_TIMEOUT": "2"])
        #expect(result.status == 1 && result.stdout.contains("timeout expired"), "\(result.stdout)\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 6)
    }

    /// A host name with several addresses (AAAA and A) whose first does not answer within
    /// `connect_timeout` (IPv6 routed nowhere) is passed for the next, as libpq's own connect does:
    /// the real binary, the name given its two addresses by an /etc/hosts of its own (a mount namespace).
    @Test(.enabled(if: MountNamespace.available, "needs unshare and user namespaces"))
    func aNameWhoseFirstAddressDoesNotAnswerIsConnectedByTheNext() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let admin = try PostgresConnection(url: url)
        let port = try #require(admin.option("port")), user = try #require(admin.option("user"))
        admin.close()
        // [::1]:port listening, never accepting (the server listens on 127.0.0.1 only); none when IPv6 is off.
        let silent = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        address.sin6_port = UInt16(port)!.bigEndian
        let listening = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(silent, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 && listen(silent, 4) == 0
            }
        }
        guard silent >= 0, listening else { return }
        let directory = makeTemporaryDirectory()
        try "::1 multi.test\n127.0.0.1 multi.test\n".write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              pg:
                type: postgres
                url: "host=multi.test port=\(port) dbname=postgres user=\(user) sslmode=disable connect_timeout=2"
                user_id: 00000000-0000-4000-8000-000000000001
            """, in: directory)
        let hosts = "exec /usr/bin/unshare -rm /bin/bash -c 'mount --bind \(directory)/hosts /etc/hosts && exec \"$0\" \"$@\"' \"$0\" \"$@\""
        let started = Date()
        let result = try CommandRunner.run(["check", "--connect", "--config", config], in: directory, shellSetup: hosts)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("pg: connected"), "\(result.stdout)")
        // ::1 came first, and was waited for.
        #expect(Date().timeIntervalSince(started) >= 2)
    }

    @Test func tlsWithTheServerCertificateVerified() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port,
              let rootCertificate = PostgresTestDatabase.environment("PG_TLS_ROOT_CERT") else { return }
        let secure = "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=verify-full&sslrootcert=\(rootCertificate)"
        let connection = try PostgresConnection(url: secure)
        defer { connection.close() }
        let session = try connection.execute("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        #expect(session.bool(0, 0) == true)
        #expect(session.text(0, 1)?.hasPrefix("TLS") == true, "\(session.text(0, 1) ?? "no version")")
        // The plain URL of the other tests does not use it.
        let plain = try PostgresConnection(url: url)
        defer { plain.close() }
        #expect(try plain.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").bool(0, 0) == false)

        // A sink over TLS writes and reads back like any other.
        let schema = PostgresTestDatabase.freshSchema()
        let sink = TimescaleDBSink(configuration: .init(url: secure, schema: schema, requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        defer { sink.close() }
        #expect(try sink.prepare() == 0)
        try sink.write(ConformanceFixtures.entries([ConformanceFixtures.heartRate]), cursor: 1)
        #expect(try Self.storedIds(sink) == [ConformanceFixtures.heartRate.id])
    }

    @Test func aServerCertificateFromAnotherAuthorityIsRefusedWithTheReason() throws {
        guard PostgresTestDatabase.url != nil, let port = PostgresTestDatabase.port, PostgresTestDatabase.environment("PG_TLS_ROOT_CERT") != nil else { return }
        let directory = ConformanceFixtures.temporaryDirectory()
        let other = try SelfSignedCertificate(in: directory, name: "other", commonName: "another CA")
        let url = "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=verify-full&sslrootcert=\(other.certificatePath)"
        #expect {
            try PostgresConnection(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains("connect to") && text.contains("certificate verify failed")
        }
        // The timescaledb sink reports it as misconfigured (no retry mends it), saying what to fix.
        let sink = TimescaleDBSink(configuration: .init(url: url, schema: "unused", requireTimescaledb: false),
                                   context: ConformanceFixtures.context())
        #expect {
            _ = try sink.prepare()
        } throws: { error in
            guard case SinkError.misconfigured(let reason) = error else { return false }
            return reason.contains("certificate verify failed") && reason.contains("To fix: ") && reason.contains("sslrootcert")
        }
    }

    /// The password of the role PG_PASSWORD_ROLE, which whichever test comes first creates.
    static let password = "p@ss:w/rd?é #1"

    /// Creates `role` with `password` unless it exists. Tests run side by side: two creating it at
    /// once fail on the catalog's unique index rather than with duplicate_object.
    static func createPasswordRole(_ role: String, on admin: PostgresConnection) throws {
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE \(SQL.identifier(role)) LOGIN PASSWORD \(SQL.literal(password));
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$
            """)
    }

    @Test func aPasswordInTheURLIsUsedAndAWrongOneRefused() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port, let role = PostgresTestDatabase.environment("PG_PASSWORD_ROLE") else {
            return
        }
        let password = Self.password
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        try Self.createPasswordRole(role, on: admin)
        func login(_ password: String) -> String {
            "postgres://\(role):\(Self.percentEncoded(password))@127.0.0.1:\(port)/postgres?sslmode=disable"
        }
        let connection = try PostgresConnection(url: login(password))
        defer { connection.close() }
        #expect(try connection.execute("SELECT current_user").text(0, 0) == role)
        #expect {
            try PostgresConnection(url: login("wrong"))
        } throws: { error in
            "\(error)".contains("password authentication failed for user \"\(role)\"")
                && (error as? PostgresError)?.misconfiguration?.contains("password") == true
        }
        // libpq's default sslmode (prefer) tries a server with TLS, as this one is, then without:
        // the refusal is said once, not once a try.
        #expect {
            try PostgresConnection(url: "postgres://\(role):wrong@127.0.0.1:\(port)/postgres")
        } throws: { error in
            "\(error)".components(separatedBy: "password authentication failed").count == 2
        }
    }

    /// A connection the server refuses for its configuration (a wrong or missing password, a
    /// database or role that does not exist) makes both sinks report `misconfigured`, saying what to
    /// fix: retrying cannot help. A server that is not there stays `unavailable` (retried).
    @Test func aRefusedConfigurationIsMisconfiguredAndAServerThatIsDownIsUnavailable() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port,
              let role = PostgresTestDatabase.environment("PG_PASSWORD_ROLE") else { return }
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        try Self.createPasswordRole(role, on: admin)
        // A role that may not log in, and a database the public may not connect to.
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE hr_nologin NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
            DO $$ BEGIN CREATE ROLE hr_noconnect LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$
            """)
        if try admin.query("SELECT count(*) FROM pg_database WHERE datname = 'hr_noconnect'").int(0, 0) == 0 {
            _ = try? admin.execute("CREATE DATABASE hr_noconnect")  // another run may be creating it too
        }
        try admin.execute("REVOKE CONNECT ON DATABASE hr_noconnect FROM PUBLIC")
        let server = "127.0.0.1:\(port)"
        let refused: [(url: String, says: String, fix: String)] = [
            ("postgres://hr_nologin@\(server)/postgres?sslmode=disable", "is not permitted to log in", "ALTER ROLE"),
            ("postgres://hr_noconnect@\(server)/hr_noconnect?sslmode=disable", "does not have CONNECT privilege", "GRANT CONNECT"),
            ("postgres://postgres@\(server)/postgres?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
             "root certificate file \"/nonexistent/ca.pem\" does not exist", "names a file that does not exist"),
            ("host=127.0.0.1 port=99999 dbname=postgres", "invalid port number", "fix the sink's `url`"),
            ("postgres://us%zzer@\(server)/postgres", "holds a '%' that is no percent-escape", "fix the sink's `url`"),
            ("postgres://postgres@\(server)/postgres?sslmode=disable&channel_binding=require", "channel binding required",
             "channel_binding"),
            ("postgres://\(role):wrong@\(server)/postgres?sslmode=disable", "password authentication failed", "password in the sink's `url`"),
            ("postgres://\(role)@\(server)/postgres?sslmode=disable", "no password supplied", "asks for a password"),
            ("postgres://postgres@\(server)/no_such_database?sslmode=disable", "database \"no_such_database\" does not exist", "createdb"),
            ("postgres://no_such_role@\(server)/postgres?sslmode=disable", "role \"no_such_role\" does not exist", "createuser"),
            ("postgres://postgres@\(server)/postgres?sslmode=sometimes", "invalid sslmode", "fix the sink's `url`"),
        ]
        for (bad, says, fix) in refused {
            for sink in PostgresTestDatabase.bothSinks(url: bad, schema: "unused") {
                #expect {
                    _ = try sink.prepare()
                } throws: { error in
                    guard case SinkError.misconfigured(let reason) = error else { return false }
                    return reason.contains(says) && reason.contains("To fix: ") && reason.contains(fix) && !reason.contains("..")
                }
            }
        }
        let down = PostgresSink(configuration: .init(url: "host=127.0.0.1 port=1 dbname=x connect_timeout=2", userId: "me",
                                                     schema: "unused"),
                                context: ConformanceFixtures.context())
        #expect {
            _ = try down.prepare()
        } throws: { error in
            guard case SinkError.unavailable(let reason) = error else { return false }
            return reason.contains("connect to") && !reason.contains("To fix")
        }
    }

    /// A role that may write in an existing schema, but not create schemas in the database, prepares
    /// both sinks there (`CREATE SCHEMA IF NOT EXISTS` alone asks for the database's CREATE
    /// privilege); one that may not is `misconfigured`, saying what to grant, not retried.
    @Test func aRoleThatMayWriteInItsSchemaNeedsNoMoreAndOneThatMayNotIsToldWhatToGrant() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port else { return }
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        let writable = "hr_w$$" + PostgresTestDatabase.freshSchema()   // `$$` in a name is fine too
        let closed = "hr_c_" + PostgresTestDatabase.freshSchema()
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE hr_schema_writer LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
            CREATE SCHEMA \(SQL.identifier(writable)); CREATE SCHEMA \(SQL.identifier(closed));
            GRANT USAGE, CREATE ON SCHEMA \(SQL.identifier(writable)) TO hr_schema_writer
            """)
        defer { _ = try? admin.execute("DROP SCHEMA \(SQL.identifier(writable)) CASCADE; DROP SCHEMA \(SQL.identifier(closed)) CASCADE") }
        #expect(try admin.query("SELECT has_database_privilege('hr_schema_writer', current_database(), 'CREATE')").text(0, 0) == "f")
        let roleURL = "postgres://hr_schema_writer@127.0.0.1:\(port)/postgres?sslmode=disable"
        for sink in PostgresTestDatabase.bothSinks(url: roleURL, schema: writable) {
            #expect(throws: Never.self) { _ = try sink.prepare() }
            sink.close()
        }
        for sink in PostgresTestDatabase.bothSinks(url: roleURL, schema: closed) {
            #expect {
                _ = try sink.prepare()
            } throws: { error in
                guard case SinkError.misconfigured(let reason) = error else { return false }
                return reason.contains("permission denied") && reason.contains("To fix: the role must own the sink's tables")
            }
            sink.close()
        }
    }

    /// A role or database whose sessions take no writes (`default_transaction_read_only`, as a
    /// standby's are): retried, as a standby being promoted takes writes soon, and the reason says
    /// which it is, where the setting was made and the statement that turns it off.
    @Test func aReadOnlySessionSaysWhy() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port else { return }
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        let schema = "hr_ro_" + PostgresTestDatabase.freshSchema()
        let database = "hr_ro_db_" + PostgresTestDatabase.freshSchema()
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE hr_read_only_default LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
            ALTER ROLE hr_read_only_default SET default_transaction_read_only = on;
            CREATE SCHEMA \(SQL.identifier(schema)) AUTHORIZATION hr_read_only_default
            """)
        try admin.execute("CREATE DATABASE \(database)")
        try admin.execute("ALTER DATABASE \(database) SET default_transaction_read_only = on")
        defer {
            _ = try? admin.execute("DROP SCHEMA \(SQL.identifier(schema)) CASCADE")
            _ = try? admin.execute("DROP DATABASE \(database)")
        }
        let cases = [
            ("postgres://hr_read_only_default@127.0.0.1:\(port)/postgres?sslmode=disable",
             "default_transaction_read_only is on for role \"hr_read_only_default\": ALTER ROLE \"hr_read_only_default\" RESET "
                + "default_transaction_read_only"),
            ("postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable",
             "default_transaction_read_only is on for database \"\(database)\": ALTER DATABASE \"\(database)\" RESET "
                + "default_transaction_read_only"),
        ]
        for (sinkURL, says) in cases {
            for sink in PostgresTestDatabase.bothSinks(url: sinkURL, schema: schema) {
                #expect {
                    _ = try sink.prepare()
                } throws: { error in
                    guard case SinkError.unavailable(let reason) = error else { return false }
                    return reason.contains("SQLSTATE 25006") && reason.contains("The server takes no writes in this session: " + says)
                }
                sink.close()
            }
        }
    }

    /// A privilege taken from the role that owns the sink's tables (`REVOKE INSERT ON samples FROM
    /// …`): the write is `misconfigured`, saying which privileges the role lacks on which table and
    /// the GRANT that gives them back; granted again, the write succeeds.
    @Test func aRevokedPrivilegeIsMisconfiguredWithTheGrantThatGivesItBack() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port else { return }
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        let schema = "hr_gr_" + PostgresTestDatabase.freshSchema()
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE hr_grant_owner LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
            CREATE SCHEMA \(schema) AUTHORIZATION hr_grant_owner; CREATE SCHEMA \(schema)_ts AUTHORIZATION hr_grant_owner
            """)
        defer { _ = try? admin.execute("DROP SCHEMA \(schema) CASCADE; DROP SCHEMA \(schema)_ts CASCADE") }
        let roleURL = "postgres://hr_grant_owner@127.0.0.1:\(port)/postgres?sslmode=disable"
        let cases: [(sink: any Sink, table: String, revoked: String)] = [
            (TimescaleDBSink(configuration: .init(url: roleURL, schema: schema + "_ts", requireTimescaledb: false),
                             context: ConformanceFixtures.context()), "\"\(schema)_ts\".\"samples\"", "INSERT"),
            (PostgresSink(configuration: .init(url: roleURL, userId: "me", schema: schema), context: ConformanceFixtures.context()),
             "\"\(schema)\".\"healthkit_metrics\"", "INSERT, DELETE"),
        ]
        for (sink, table, revoked) in cases {
            defer { sink.close() }
            _ = try sink.prepare()
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(1)]), cursor: 1)
            try admin.execute("REVOKE \(revoked) ON \(table) FROM hr_grant_owner")
            #expect {
                try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(2)], from: 2), cursor: 2)
            } throws: { error in
                guard case SinkError.misconfigured(let reason) = error else { return false }
                return reason.contains("permission denied for table") && reason.contains(
                    "To fix: role hr_grant_owner lacks \(revoked) on \(table) (the sink reads, writes and deletes rows in its tables): "
                        + "GRANT \(revoked) ON \(table) TO \"hr_grant_owner\"")
            }
            try admin.execute("GRANT \(revoked) ON \(table) TO hr_grant_owner")
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(2)], from: 2), cursor: 2)
        }
    }

    /// The session's setup is part of connecting (with TimescaleDB preloaded, its first statement
    /// loads the library): its failure names the server it connected to.
    @Test func aFailureToSetUpTheSessionIsAFailureToConnect() throws {
        guard let url = PostgresTestDatabase.url, let port = PostgresTestDatabase.port else { return }
        do {
            _ = try PostgresConnection(url: url, statementTimeoutSeconds: 3_000_000)   // past statement_timeout's range
            Issue.record("connected with a statement timeout PostgreSQL refuses")
        } catch let error as PostgresError {
            #expect(error.operation == "connect to 127.0.0.1:\(port)/postgres", "\(error)")
            #expect(error.sqlState == "22023", "\(error)")
        }
    }

    @Test func aStatementOverItsTimeoutIsCancelledAndTheConnectionStaysUsable() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let connection = try PostgresConnection(url: url, statementTimeoutSeconds: 1)
        defer { connection.close() }
        let started = Date()
        #expect {
            try connection.execute("SELECT pg_sleep(5)")
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.sqlState == "57014" && error.description.contains("statement timeout")
        }
        #expect(Date().timeIntervalSince(started) < 4)
        #expect(try connection.execute("SELECT 1").int(0, 0) == 1)
    }

    /// A table another session holds locked (a long migration, say) makes the sink's write wait no
    /// longer than `statement_timeout`: the batch fails as unavailable (retried), and lands once
    /// the lock is gone.
    @Test func aSinkWriteBlockedPastItsStatementTimeoutIsRetriedLater() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        configuration.statementTimeout = .seconds(1)
        let sink = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        defer { sink.close() }
        _ = try sink.prepare()
        let locker = try PostgresConnection(url: url)
        defer { locker.close() }
        try locker.execute("BEGIN; LOCK TABLE \(SQL.qualified(schema, "samples")) IN ACCESS EXCLUSIVE MODE")
        let entries = ConformanceFixtures.entries([ConformanceFixtures.heartRate])
        #expect {
            try sink.write(entries, cursor: 1)
        } throws: { error in
            guard case SinkError.unavailable(let reason) = error else { return false }
            return reason.contains("statement timeout")
        }
        try locker.execute("ROLLBACK")
        try sink.write(entries, cursor: 1)
        #expect(try Self.storedIds(sink) == [ConformanceFixtures.heartRate.id])
    }
}
