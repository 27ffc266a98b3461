import Foundation
import TestSupport

/// A proxy on a random loopback port before a PostgreSQL server (Python, one thread a direction
/// a connection), for tests that must see what a sink sends:
/// - every statement a client sends (a simple query's text, an extended query's `Parse`) is kept,
///   in order, in `statements`;
/// - a simple query that is TimescaleDB DDL plain PostgreSQL refuses (`ALTER TABLE … SET
///   (timescaledb.…)`, `CREATE MATERIALIZED VIEW … WITH (timescaledb.…)`) is passed to the
///   TimescaleDB stand-in's `_timescaledb_internal.stand_in_utility` (scripts/timescaledb-stand-in.sql)
///   instead, as TimescaleDB's utility hook takes it on a real server;
/// - with `resetsSessionBeforeBegin`, every `BEGIN` runs after a `RESET ALL`, as a transaction
///   pooler hands each transaction a server connection with no session settings of the client's.
///
/// The process is SIGKILLed when the value goes away.
final class PostgresStatementProxy {
    let port: Int
    private let process: PortPrintingScript
    private let logFile: String

    init(serverPort: Int, resetsSessionBeforeBegin: Bool = false) throws {
        logFile = TestScratch.path + "pg-proxy-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process = try PortPrintingScript(Self.script, arguments: [String(serverPort), logFile, resetsSessionBeforeBegin ? "1" : "0"])
        port = process.port
    }

    /// `url` (a conninfo naming `port=`) through the proxy.
    func url(for url: String) -> String {
        url.replacingOccurrences(of: #"port=\d+"#, with: "port=\(port)", options: .regularExpression)
    }

    /// The statements sent so far, in order, as the client wrote them.
    var statements: [String] {
        ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").split(separator: "\u{0}").map(String.init)
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(atPath: logFile)
    }

    private static let script = #"""
        import re, socket, struct, sys, threading
        server_port, log_path, resets = int(sys.argv[1]), sys.argv[2], sys.argv[3] == '1'
        timescaledb = re.compile(r'\s*(ALTER TABLE|CREATE MATERIALIZED VIEW)\b.*\btimescaledb\.', re.S | re.I)
        lock = threading.Lock()
        def record(text):
            with lock, open(log_path, 'a', encoding='utf-8') as log:
                log.write(text + '\0')
        def exactly(sock, n):
            data = b''
            while len(data) < n:
                part = sock.recv(n - len(data))
                if not part:
                    raise EOFError
                data += part
            return data
        def close(*socks):
            for s in socks:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
        def upstream(client, server):
            try:
                while True:   # untyped: SSL/GSS requests, then the startup message
                    length = struct.unpack('!I', exactly(client, 4))[0]
                    body = exactly(client, length - 4)
                    server.sendall(struct.pack('!I', length) + body)
                    if struct.unpack('!I', body[:4])[0] == 196608:
                        break
                while True:
                    kind = exactly(client, 1)
                    body = exactly(client, struct.unpack('!I', exactly(client, 4))[0] - 4)
                    if kind == b'Q':
                        text = body[:-1].decode('utf-8')
                        record(text)
                        if timescaledb.match(text):
                            text = 'SELECT _timescaledb_internal.stand_in_utility($hr_statement$' + text + '$hr_statement$)'
                        elif resets and text.strip().upper() == 'BEGIN':
                            text = 'RESET ALL; BEGIN'
                        body = text.encode('utf-8') + b'\0'
                    elif kind == b'P':
                        start = body.index(b'\0') + 1
                        record(body[start:body.index(b'\0', start)].decode('utf-8'))
                    server.sendall(kind + struct.pack('!I', len(body) + 4) + body)
            except (EOFError, OSError):
                pass
            close(client, server)
        def downstream(server, client):
            try:
                while True:
                    data = server.recv(65536)
                    if not data:
                        break
                    client.sendall(data)
            except OSError:
                pass
            close(client, server)
        listener = socket.socket()
        listener.bind(('127.0.0.1', 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        while True:
            client, _ = listener.accept()
            server = socket.create_connection(('127.0.0.1', server_port))
            threading.Thread(target=upstream, args=(client, server), daemon=True).start()
            threading.Thread(target=downstream, args=(server, client), daemon=True).start()
        """#
}
