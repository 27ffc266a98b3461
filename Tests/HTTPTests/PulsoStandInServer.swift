import Foundation
import TestSupport

/// A Pulso receiver stand-in on a random loopback port (Python's `http.server`), strict the way
/// real receivers and the proxies before them are:
/// - a request body over `bodyLimit` bytes (as sent, gzip or not) is answered 413 with nginx's
///   page (its lines ended by CR LF), after the body was read;
/// - a body with an element whose `uuid` starts with `BAD` is answered 400;
/// - a body with an element whose `uuid` starts with `HANG` is answered 20 s late the first time
///   (a server that stops answering for a while);
/// - a body whose first element's `uuid` is `STATUS-<code>…` is answered `<code>` with a Pulso
///   error (`{"error": …}`), `OTHER-<code>…` with another service's (`{"detail": …}`), both
///   pretty-printed on several lines;
/// - a body whose first element's `uuid` is `BUSY-<seconds>…` is answered 503 with `Retry-After:
///   <seconds>` the first time, then stored (a receiver that asks for time);
/// - with `failEvery` N, every Nth `POST` is answered 503 before it is read (a flaky link);
/// - with `holdsFirstPost`, the first `POST` is read, then held until `releaseFirstPost()` (60 s at
///   most; `firstPostArrived` tells it came), and with `delay` every `POST` is answered that many
///   seconds late (a slow receiver);
/// - a body whose first element's `uuid` is `ECHO-<code>…` is answered `<code>` with a Pulso error
///   that quotes the request's headers (a debug page, a request bin);
/// - with `redirectTo`, every request is answered 301 with `Location: <redirectTo><its path>` and
///   no body (a proxy sending http:// to https://);
/// - with `gate`, a proxy before it: `.tokenOnEveryPath(t)` answers 401 (nginx's page) to every
///   request without `Authorization: Bearer t`, `/health` too; `.onlyIngestAndHealth` answers 403
///   (nginx's page) to every path but those two (a proxy set up for Pulso before v1.2);
/// - any other body is stored (its uuids, one a line, in `received`) and answered
///   `{"received": <element count>}`. `GET` anything answers `{"status": "ok"}`.
/// Every status a `POST` was answered is kept, in order, in `statuses`.
///
/// The process is SIGKILLed by `stop()` or when the value goes away.
final class PulsoStandInServer {
    let port: Int
    private let process: PortPrintingScript
    private let uuidFile: String
    private let statusFile: String

    /// A proxy before the stand-in (`gate`).
    enum Gate {
        case tokenOnEveryPath(String)
        case onlyIngestAndHealth

        var argument: String {
            switch self {
            case .tokenOnEveryPath(let token): "token:" + token
            case .onlyIngestAndHealth: "paths"
            }
        }
    }

    init(bodyLimit: Int = 1 << 30, failEvery: Int = 0, holdsFirstPost: Bool = false, delay: Double = 0,
         redirectTo: String? = nil, gate: Gate? = nil) throws {
        uuidFile = TestScratch.path + "standin-\(UUID().uuidString).txt"
        statusFile = uuidFile + ".status"
        _ = FileManager.default.createFile(atPath: uuidFile, contents: nil)
        process = try PortPrintingScript(Self.script, arguments: [String(bodyLimit), uuidFile, statusFile, String(failEvery),
                                                                 holdsFirstPost ? "1" : "0", String(delay), redirectTo ?? "",
                                                                 gate?.argument ?? ""])
        port = process.port
    }

    /// The uuids of every element stored so far, in arrival order (a re-sent one repeats).
    var received: [String] {
        ((try? String(contentsOfFile: uuidFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The status of every `POST` answered so far, in order.
    var statuses: [Int] {
        ((try? String(contentsOfFile: statusFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int($0) }
    }

    /// Whether the first `POST` came (with `holdsFirstPost`: it is held until `releaseFirstPost()`).
    var firstPostArrived: Bool { FileManager.default.fileExists(atPath: uuidFile + ".arrived") }

    func releaseFirstPost() {
        _ = FileManager.default.createFile(atPath: uuidFile + ".release", contents: nil)
    }

    func stop() {
        process.stop()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: uuidFile)
        try? FileManager.default.removeItem(atPath: statusFile)
        try? FileManager.default.removeItem(atPath: uuidFile + ".arrived")
        try? FileManager.default.removeItem(atPath: uuidFile + ".release")
    }

    private static let script = """
        import gzip, http.server, json, os, sys, time
        limit, path, statuses, fail_every = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        held, delay, redirect, gate = [sys.argv[5] == '1'], float(sys.argv[6]), sys.argv[7], sys.argv[8]
        hung = set()
        posts = [0]
        class H(http.server.BaseHTTPRequestHandler):
            def answer(self, status, body, retry_after=None, location=None):
                if self.command == 'POST':
                    with open(statuses, 'a') as f:
                        f.write(str(status) + '\\n')
                self.send_response(status)
                if retry_after:
                    self.send_header('Retry-After', retry_after)
                if location:
                    self.send_header('Location', location)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def gated(self):
                if gate.startswith('token:') and self.headers.get('Authorization') != 'Bearer ' + gate[6:]:
                    self.answer(401, b'<html><head><title>401 Authorization Required</title></head><body>nginx</body></html>')
                    return True
                if gate == 'paths' and self.path not in ('/ingest', '/health'):
                    self.answer(403, b'<html><head><title>403 Forbidden</title></head><body>nginx</body></html>')
                    return True
                return False
            def do_GET(self):
                if self.gated():
                    return
                if redirect:
                    return self.answer(301, b'', location=redirect + self.path)
                self.answer(200, b'{"status": "ok"}')
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get('Content-Length', 0)))
                if self.gated():
                    return
                if redirect:
                    return self.answer(301, b'', location=redirect + self.path)
                posts[0] += 1
                if held[0]:
                    held[0] = False
                    open(path + '.arrived', 'w').close()
                    deadline = time.time() + 60
                    while not os.path.exists(path + '.release') and time.time() < deadline:
                        time.sleep(0.02)
                if delay:
                    time.sleep(delay)
                if fail_every and posts[0] % fail_every == 0:
                    return self.answer(503, b'{"error": "busy"}')
                if len(raw) > limit:
                    return self.answer(413, b'<html>\\r\\n<head><title>413 Request Entity Too Large</title></head>\\r\\n<body>\\r\\n'
                                            b'<center><h1>413 Request Entity Too Large</h1></center>\\r\\n<hr><center>nginx</center>\\r\\n'
                                            b'</body>\\r\\n</html>\\r\\n')
                if self.headers.get('Content-Encoding', '').lower() == 'gzip':
                    raw = gzip.decompress(raw)
                elements = json.loads(raw)
                uuids = [e.get('uuid', '') for e in elements if isinstance(e, dict)]
                if uuids and uuids[0].startswith('ECHO-'):
                    return self.answer(int(uuids[0].split('-')[1]), json.dumps({'error': 'unexpected request',
                                                                                 'headers': dict(self.headers)}).encode())
                if uuids and uuids[0].startswith('STATUS-'):
                    return self.answer(int(uuids[0].split('-')[1]), b'{\\n  "error": "as asked"\\n}')
                if uuids and uuids[0].startswith('BUSY-') and uuids[0] not in hung:
                    hung.add(uuids[0])
                    return self.answer(503, b'{"error": "busy"}', retry_after=uuids[0].split('-')[1])
                if any(u.startswith('HANG') and u not in hung for u in uuids):
                    hung.update(u for u in uuids if u.startswith('HANG'))
                    time.sleep(20)
                if uuids and uuids[0].startswith('OTHER-'):
                    return self.answer(int(uuids[0].split('-')[1]), b'{\\n  "detail": "validation failed"\\n}')
                if any(u.startswith('BAD') for u in uuids):
                    return self.answer(400, b'{"error": "bad element"}')
                with open(path, 'a') as f:
                    f.write(''.join(u + '\\n' for u in uuids))
                self.answer(200, json.dumps({'received': len(elements)}).encode())
            def log_message(self, *args):
                pass
        s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """
}
