import CLibPQ
import Foundation

/// One libpq connection (not thread-safe: use it from one thread at a time).
///
/// - Accepts a URL (`postgres://user:pass@host:5432/db?sslmode=require`) or a conninfo string
///   (`host=… dbname=…`); TLS is libpq's (`sslmode`, `sslrootcert` in the URL or conninfo).
/// - Sets `application_name=healthrouter`, a connect timeout, and TCP keepalives and a TCP user
///   timeout unless the URL names its own: a server that vanished mid-call (a frozen VM, a
///   dropped link) fails the call within about a minute instead of leaving it waiting forever
///   (`statement_timeout` is the server's, which cannot fire then).
/// - Every session runs with `TimeZone = 'UTC'` and the given `statement_timeout`.
/// - Reconnecting is the caller's: a `SinkWorker` makes a fresh sink (and connection) after a
///   failure, with exponential backoff; `DirectDelivery` calls the sink's `reconnect()`.
public final class PostgresConnection {
    private var handle: OpaquePointer?
    /// The COPY statement `beginCopy` started and `endCopy` has not ended.
    private var copyInProgress: String?
    /// The address for messages: `host:port/db`, never the password.
    public private(set) var endpoint = "PostgreSQL"
    /// Receives the server's notices (a WARNING, a FATAL sent to an idle session), on one line;
    /// nil: they go to standard error with healthrouter's prefix. Called on the thread using the
    /// connection, during a call on it (or during `init`, given there: a notice the server sends
    /// while the session starts).
    public var onNotice: ((String) -> Void)?

    /// PostgreSQL's longest `statement_timeout`, 2,147,483,647 ms, in whole seconds (24.8 days).
    public static let longestStatementTimeoutSeconds = 2_147_483

    /// Why a configured `statement_timeout` of `seconds` cannot be one, or nil: under a second it
    /// would be sent as 0, which PostgreSQL takes for no limit at all; past 24 days the server
    /// refuses every connection.
    public static func statementTimeoutProblem(_ seconds: Double) -> String? {
        guard seconds >= 1, seconds <= Double(longestStatementTimeoutSeconds) else {
            return "statement_timeout must be from 1s to 24d (whole seconds; PostgreSQL takes at most 2,147,483,647 ms)"
        }
        return nil
    }

    /// Connects to `url`. `onNotice` is in place before the server's first message, so that a
    /// notice it sends while the session starts (a WARNING at login: a database whose collation
    /// version does not match the library's, a role's or a login trigger's) reaches it too instead
    /// of libpq's bare multi-line text on standard error (a JSON log's reader would meet plain text).
    public init(url: String, connectTimeoutSeconds: Int = 10, statementTimeoutSeconds: Int = 300,
                onNotice: ((String) -> Void)? = nil) throws {
        self.onNotice = onNotice
        // Not given to libpq: its messages would quote the piece of the password it took for the port or host.
        if let hazard = PostgresConnectionString.passwordHazard(url) {
            throw PostgresError(message: hazard, operation: "connect to PostgreSQL",
                                misconfiguration: "fix the sink's `url` (the password percent-encoded)")
        }
        // Later keywords win over the expanded URL only when given after it: defaults go first.
        // The environment's PGCONNECT_TIMEOUT, as libpq's other PG variables, over healthrouter's default.
        let ownTimeout = ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil
        let keywords = (ownTimeout ? ["connect_timeout"] : []) + ["application_name"] + Self.liveness.map(\.keyword) + ["dbname"]
        let values = (ownTimeout ? [String(connectTimeoutSeconds)] : []) + ["healthrouter"] + Self.liveness.map(\.value) + [url]
        // Started, then driven to the end here (`finishConnecting`): libpq's blocking connect
        // gives no moment to set the notice processor before the server speaks. Not for a URL (or
        // PGHOST) listing several hosts: only libpq's blocking connect goes on to the next host when
        // one times out (a standby's address down: `target_session_attrs=read-write` finds the
        // primary), so those connect that way, and a notice sent at login goes to standard error as
        // libpq's text.
        var connection = Self.withCStrings(keywords) { keys in
            Self.withCStrings(values) { vals in PQconnectStartParams(keys, vals, 1) }
        }
        var started = true
        if let listed = connection, Self.listsSeveralHosts(listed) {
            PQfinish(listed)
            connection = Self.withCStrings(keywords) { keys in
                Self.withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
            }
            started = false
        }
        handle = connection
        var timedOut: String?
        if let connection {
            receiveNotices(of: connection)
            if started { timedOut = Self.finishConnecting(connection) }
        }
        // A host name of several addresses (AAAA and A records) whose first did not answer in time
        // (IPv6 routed nowhere): libpq's blocking connect, begun again, goes on to the others.
        if timedOut != nil, let timed = connection, Self.namesSeveralAddresses(timed) {
            PQfinish(timed)
            connection = Self.withCStrings(keywords) { keys in
                Self.withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
            }
            handle = connection
            timedOut = nil
            if let connection { receiveNotices(of: connection) }
        }
        if let connection, timedOut == nil, PQstatus(connection) == CONNECTION_OK {
            endpoint = Self.describe(connection)
        } else {
            let message = timedOut ?? connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            let target = connection.map(Self.describe) ?? "PostgreSQL"
            let needsPassword = connection.map { PQconnectionNeedsPassword($0) != 0 } ?? false
            if let connection { PQfinish(connection) }
            handle = nil
            throw PostgresError(message: Self.withoutRepeatedLines(message).asOneLine, operation: "connect to \(target)",
                                misconfiguration: PostgresConnectFailure.advice(message: message, needsPassword: needsPassword))
        }
        // The session's first statement: on a server with TimescaleDB preloaded it also makes the
        // loader open the library of the database's catalog version, which may fail.
        do {
            // Literals (`SQL.literal`) double quotes only: with standard_conforming_strings off (a
            // database or role may set it) a backslash would escape, and a sample id could end a
            // string early. The session turns it on whatever the server's default.
            // Text goes both ways in UTF-8 whatever the environment says (`PGCLIENTENCODING=LATIN1`
            // had the server take healthrouter's UTF-8 bytes for LATIN1: `’` stored as `â\u0080\u0099`).
            try execute("SET TimeZone = 'UTC'; SET statement_timeout = \(statementTimeoutSeconds * 1000);"
                            + " SET client_min_messages = warning; SET standard_conforming_strings = on;"
                            + " SET client_encoding = 'UTF8'")
        } catch var error as PostgresError {
            error.operation = "connect to \(endpoint)"
            throw error
        }
    }

    deinit { close() }

    /// Why this database cannot store healthrouter's text, or nil: its encoding (`server_encoding`)
    /// is neither UTF-8 nor SQL_ASCII (which keeps bytes as given), so a device name or metadata
    /// value outside that encoding (`Jane’s Apple Watch` in LATIN1) would fail its batch.
    /// For a sink's `prepare()`; reading such a database is fine.
    public func textEncodingProblem() throws -> String? {
        let encoding = try query("SHOW server_encoding").text(0, 0) ?? ""
        guard encoding != "UTF8", encoding != "SQL_ASCII" else { return nil }
        return "database \(endpoint) stores text as \(encoding), which cannot hold every character of health data "
            + "(device names, metadata): create it with UTF-8 (`createdb -E UTF8 -T template0 NAME`, or "
            + "`CREATE DATABASE name ENCODING 'UTF8' TEMPLATE template0`) and point `url` at it"
    }

    /// Drives a connection `PQconnectStartParams` started until it is made or failed, as libpq's
    /// blocking connect does: waits for its socket as `PQconnectPoll` asks, at most
    /// `connect_timeout` seconds (2 at least, none when 0) for each address tried (a new socket).
    /// Returns libpq's words for an address that took longer (`connection to server at "10.0.0.9",
    /// port 5432 failed: timeout expired`), which ends the attempt (for a URL of one host; one of
    /// several hosts connects through libpq's blocking connect, which goes on to the next, and so
    /// does a host name of several addresses once its first timed out); nil otherwise (`PQstatus`
    /// tells the outcome).
    private static func finishConnecting(_ connection: OpaquePointer) -> String? {
        var limit = 0.0
        if let text = option(connection, "connect_timeout"), let seconds = Int(text.trimmingCharacters(in: .whitespaces)),
           seconds > 0 {
            limit = Double(max(2, seconds))
        }
        var state = PGRES_POLLING_WRITING
        var socket: Int32 = -1
        var stage = CONNECTION_BAD
        var deadline = Date.distantFuture
        while PQstatus(connection) != CONNECTION_BAD, state != PGRES_POLLING_OK, state != PGRES_POLLING_FAILED {
            let descriptor = PQsocket(connection)
            guard descriptor >= 0 else { return nil }
            // A new address: a new socket, or the same number again for it (closed, then reused),
            // which starts over at CONNECTION_STARTED.
            let now = PQstatus(connection)
            if descriptor != socket || (now == CONNECTION_STARTED && stage != CONNECTION_STARTED) {
                socket = descriptor
                deadline = limit > 0 ? Date(timeIntervalSinceNow: limit) : .distantFuture
            }
            stage = now
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                let host = PQhost(connection).map { String(cString: $0) } ?? "?"
                let port = PQport(connection).map { String(cString: $0) } ?? "?"
                return "connection to server at \"\(host)\", port \(port) failed: timeout expired"
            }
            var entry = pollfd(fd: descriptor, events: Int16(state == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
            let waited = poll(&entry, 1, Int32(min(remaining, 60) * 1000) + 1)
            if waited < 0, errno == EINTR { continue }
            // A socket ready, or in error (libpq's next read says which), or the time up (looked at above).
            if waited != 0 { state = PQconnectPoll(connection) }
        }
        return nil
    }

    /// Sends the server's warnings, and a FATAL it sends while the session is idle (an
    /// administrator ending it), to `onNotice`, or on one line with healthrouter's prefix, instead
    /// of libpq's bare multi-line text.
    private func receiveNotices(of connection: OpaquePointer) {
        PQsetNoticeProcessor(connection, { context, message in
            guard let context, let message else { return }
            let notice = String(cString: message).asOneLine
            if let handler = Unmanaged<PostgresConnection>.fromOpaque(context).takeUnretainedValue().onNotice {
                handler(notice)
            } else {
                FileHandle.standardError.write(Data("healthrouter: postgres: \(notice)\n".utf8))
            }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// libpq's connect failure with each line once: with `sslmode=prefer` (its default) or
    /// `allow` it tries the server twice, with and without TLS, and a refusal (a wrong password)
    /// is the same line twice, which made the message twice as long to say one thing.
    static func withoutRepeatedLines(_ message: String) -> String {
        var seen = Set<Substring>()
        return message.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { line in line.trimmingCharacters(in: .whitespaces).isEmpty || seen.insert(line).inserted }
            .joined(separator: "\n")
    }

    /// Whether the host the connection tried is a name with more than one address (not a
    /// `hostaddr`, not a Unix socket's folder).
    private static func namesSeveralAddresses(_ connection: OpaquePointer) -> Bool {
        guard option(connection, "hostaddr")?.isEmpty ?? true, let host = PQhost(connection).map({ String(cString: $0) }),
              !host.isEmpty, !host.hasPrefix("/"), !host.hasPrefix("@") else { return false }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        return first.pointee.ai_next != nil
    }

    /// Whether the connection's `host` or `hostaddr` lists more than one (`host=a,b`).
    private static func listsSeveralHosts(_ connection: OpaquePointer) -> Bool {
        ["host", "hostaddr"].contains { option(connection, $0)?.contains(",") == true }
    }

    /// TCP keepalives (idle 30 s, then 3 probes 10 s apart) and a TCP user timeout (60 s for
    /// data sent and not acknowledged): how long a connection to a server that vanished lasts.
    static let liveness: [(keyword: String, value: String)] = [
        ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "60000"),
    ]

    /// The value libpq uses for the connection option `keyword` (`keepalives_idle`), if any.
    public func option(_ keyword: String) -> String? {
        handle.flatMap { Self.option($0, keyword) }
    }

    private static func option(_ handle: OpaquePointer, _ keyword: String) -> String? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var entry = options
        while let name = entry.pointee.keyword {
            if String(cString: name) == keyword { return entry.pointee.val.map { String(cString: $0) } }
            entry += 1
        }
        return nil
    }

    /// `postgres://host:port/db (table "schema"."table")` when the server at `url` answers and has
    /// no such table; nil when it has it, or cannot be asked (the caller's next step reports that).
    /// For a read-only command to refuse a store that is not there instead of creating it. The
    /// server's notices go to `onNotice` (as a connection's).
    public static func missingTable(url: String, schema: String, table: String,
                                    onNotice: ((String) -> Void)? = nil) -> String? {
        guard let connection = try? PostgresConnection(url: url, onNotice: onNotice) else { return nil }
        defer { connection.close() }
        let name = SQL.qualified(schema, table)
        guard let exists = try? connection.query("SELECT to_regclass($1) IS NOT NULL", [name]).bool(0, 0), !exists else {
            return nil
        }
        return "postgres://\(connection.endpoint) (table \(name))"
    }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Where this connection reaches another machine without TLS (`sslmode=disable` or `allow`, or
    /// libpq's default `prefer` with a server that offers none: its data, and a password sent as
    /// such, cross the network readable and changeable): `host` or `host (address)`. Nil when the
    /// session is encrypted, runs over a Unix socket or a loopback address (no network carries it),
    /// or is plain by the url's choice (`sslmode=disable`: a tailnet or WireGuard encrypts the network
    /// between), not by libpq's silent fallback.
    public var plainTextRemoteAddress: String? {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQsslInUse(handle) == 0,
              Self.option(handle, "sslmode") != "disable" else { return nil }
        // Empty for a Unix socket (the host is then its folder).
        let address = PQhostaddr(handle).map { String(cString: $0) } ?? ""
        guard !address.isEmpty, !Self.isLoopback(address) else { return nil }
        let host = PQhost(handle).map { String(cString: $0) } ?? address
        return host == address || host.contains("@") ? address : "\(host) (\(address))"
    }

    /// Whether `address` (numeric, as `PQhostaddr` gives it) is this machine's loopback: 127.0.0.0/8, ::1.
    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.lowercased().hasPrefix("::ffff:127.")
    }

    /// Whether the connection is still usable (false after the server went away).
    public var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Whether the connection is still usable, as far as can be told without a round trip: reads
    /// what the server sent meanwhile (the error and end of a session it closed while idle:
    /// `idle_session_timeout`, a pooler's or a NAT's idle limit, `pg_terminate_backend`).
    public var survivedIdling: Bool {
        guard let handle else { return false }
        // The first read takes the server's error message, the second meets the closed socket
        // (each returns at once when nothing came).
        if PQconsumeInput(handle) == 1 { _ = PQconsumeInput(handle) }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server's version number (`150004`).
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// Runs one or more statements without parameters; returns the last result.
    @discardableResult
    public func execute(_ sql: String) throws -> PostgresResult {
        let connection = try live()
        return try check(PQexec(connection, sql), sql: sql)
    }

    /// Runs one statement with text parameters (`$1`, `$2`, …; nil is NULL).
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        let connection = try live()
        let result = Self.withOptionalCStrings(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(result, sql: sql)
    }

    /// Runs `copySQL` (`COPY t (…) FROM STDIN`) and sends `data` in COPY text format.
    public func copy(_ copySQL: String, data: [UInt8]) throws {
        try beginCopy(copySQL)
        try data.withUnsafeBufferPointer { try putCopyData($0) }
        try endCopy()
    }

    /// Starts `copySQL` (`COPY t (…) FROM STDIN`): send the data with `putCopyData`, then call
    /// `endCopy` (or `abortCopy`). Nothing else runs on the connection in between.
    public func beginCopy(_ copySQL: String) throws {
        let connection = try live()
        guard let started = PQexec(connection, copySQL) else { throw failure(copySQL) }
        if PQresultStatus(started) != PGRES_COPY_IN {
            _ = try check(started, sql: copySQL)
            throw PostgresError(message: "the server did not start COPY", operation: copySQL)
        }
        PQclear(started)
        copyInProgress = copySQL
    }

    /// Sends COPY data; the server parses it while the caller prepares the next part. Errors in the
    /// data itself are reported by `endCopy`.
    public func putCopyData(_ data: UnsafeBufferPointer<UInt8>) throws {
        let connection = try live()
        let operation = copyInProgress ?? "COPY"
        guard let base = data.baseAddress else { return }
        let chunk = 1 << 20
        var sent = 0
        while sent < data.count {
            let length = min(chunk, data.count - sent)
            let code = (base + sent).withMemoryRebound(to: CChar.self, capacity: length) {
                PQputCopyData(connection, $0, Int32(length))
            }
            if code != 1 {
                // The server may have failed the COPY already (bad data in an earlier part): its error says why.
                copyInProgress = nil
                try drainCopyResults(connection, operation: operation)
                throw failure(operation)
            }
            sent += length
        }
    }

    /// Ends the COPY `beginCopy` started; throws what the server found wrong with the data.
    public func endCopy() throws {
        let connection = try live()
        let operation = copyInProgress ?? "COPY"
        copyInProgress = nil
        if PQputCopyEnd(connection, nil) != 1 { throw failure(operation) }
        try drainCopyResults(connection, operation: operation)
    }

    /// Ends a COPY in progress, if any, without storing its rows (the server fails it).
    public func abortCopy() {
        guard let operation = copyInProgress, let connection = handle else { return }
        copyInProgress = nil
        if PQputCopyEnd(connection, "aborted by healthrouter") == 1 {
            _ = try? drainCopyResults(connection, operation: operation)
        }
    }

    private func drainCopyResults(_ connection: OpaquePointer, operation: String) throws {
        var firstError: PostgresError?
        while let result = PQgetResult(connection) {
            if firstError == nil, PQresultStatus(result) != PGRES_COMMAND_OK {
                firstError = Self.error(from: result, connection: connection, operation: Self.operation(operation))
            }
            PQclear(result)
        }
        if let firstError { throw firstError }
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            abortCopy()
            if isConnected { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: - Internals

    private func live() throws -> OpaquePointer {
        guard let handle else { throw PostgresError(message: "connection closed", operation: endpoint) }
        if PQstatus(handle) != CONNECTION_OK {
            throw PostgresError(message: "connection lost: " + String(cString: PQerrorMessage(handle)).asOneLine,
                                operation: endpoint)
        }
        return handle
    }

    private func failure(_ sql: String) -> PostgresError {
        let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "connection closed"
        return PostgresError(message: message.asOneLine, operation: Self.operation(sql))
    }

    private func check(_ result: OpaquePointer?, sql: String) throws -> PostgresResult {
        guard let result else { throw failure(sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result, connection: self)
        default:
            let error = Self.error(from: result, connection: handle, operation: Self.operation(sql))
            PQclear(result)
            throw error
        }
    }

    private static func error(from result: OpaquePointer, connection: OpaquePointer?, operation: String) -> PostgresError {
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { String(cString: $0) }
        }
        let message = field(swpq_diag_message())
            ?? connection.map { String(cString: PQerrorMessage($0)).asOneLine } ?? "unknown error"
        return PostgresError(sqlState: field(swpq_diag_sqlstate()), message: message, detail: field(swpq_diag_detail()),
                             hint: field(swpq_diag_hint()), constraint: field(swpq_diag_constraint()),
                             operation: operation)
    }

    /// What a statement does, for an error message: its write and the table written
    /// (`INSERT INTO "public"."healthkit_metrics"`, also inside a `WITH`), else its first words.
    static func operation(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\t" }).map(String.init)
        /// The table name starting at `index`: quoted parts may hold spaces; a column list or alias is left out.
        func table(at index: Int) -> String {
            var name = ""
            for word in words[index...] {
                name += (name.isEmpty ? "" : " ") + word
                if name.filter({ $0 == "\"" }).count % 2 == 0 { break }
            }
            if let paren = name.firstIndex(of: "("), name[..<paren].filter({ $0 == "\"" }).count % 2 == 0 {
                name = String(name[..<paren])
            }
            return name
        }
        let keywords = words.map { $0.drop { $0 == "(" }.uppercased() }
        for index in words.indices.dropLast() {
            let verb = keywords[index]
            if index > 0, (verb == "INTO" && keywords[index - 1] == "INSERT") || (verb == "FROM" && keywords[index - 1] == "DELETE") {
                return keywords[index - 1] + " " + verb + " " + table(at: index + 1)
            }
            if verb == "UPDATE" || verb == "COPY" { return verb + " " + table(at: index + 1) }
        }
        let flat = words.prefix(6).joined(separator: " ")
        return flat.count > 80 ? String(flat.prefix(80)) + "…" : flat
    }

    /// `host:port/dbname` as libpq read them, for messages and logs; "PostgreSQL" when libpq read
    /// no host (a url it could not parse), or when one of them holds an `@`: a piece of a password
    /// libpq took for them (`PostgresConnectionString.passwordHazard`).
    static func describe(_ connection: OpaquePointer) -> String {
        guard let host = PQhost(connection).map({ String(cString: $0) }), !host.isEmpty else { return "PostgreSQL" }
        let port = PQport(connection).map { String(cString: $0) } ?? "?"
        let db = PQdb(connection).map { String(cString: $0) } ?? "?"
        return describe(host: host, port: port, db: db)
    }

    static func describe(host: String, port: String, db: String) -> String {
        guard ![host, port, db].contains(where: { $0.contains("@") }) else { return "PostgreSQL" }
        return "\(host):\(port)/\(db)"
    }

    private static func withCStrings<R>(_ strings: [String],
                                        _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func withOptionalCStrings<R>(_ strings: [String?],
                                                _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        if pointers.isEmpty { return body(nil) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
