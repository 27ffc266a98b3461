import CCurl
import Foundation
@testable import HTTPSink

/// A blocking HTTP client on libcurl for the tests, plus a raw-socket sender for requests
/// libcurl would not send (a lying Content-Length, chunked bodies).
struct HTTPTestClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var body: String
    }

    final class Collector {
        var bytes: [UInt8] = []
    }

    let port: UInt16
    /// HTTPS without certificate checks (the tests' certificates are self-signed).
    var tls = false

    func get(_ path: String, token: String? = nil) -> Response {
        request("GET", path, body: nil, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
    }

    func post(_ path: String, _ body: [UInt8], token: String? = nil, gzip: Bool = false, headers: [String] = []) -> Response {
        var all = headers + ["Content-Type: application/json"]
        if let token { all.append("Authorization: Bearer \(token)") }
        if gzip { all.append("Content-Encoding: gzip") }
        return request("POST", path, body: gzip ? Self.gzip(body) : body, headers: all)
    }

    func post(_ path: String, _ text: String, token: String? = nil, gzip: Bool = false, headers: [String] = []) -> Response {
        post(path, Array(text.utf8), token: token, gzip: gzip, headers: headers)
    }

    func request(_ method: String, _ path: String, body: [UInt8]?, headers: [String]) -> Response {
        guard let handle = curl_easy_init() else { return Response(status: -1, body: "") }
        defer { curl_easy_cleanup(handle) }
        _ = swcurl_setopt_str(handle, CURLOPT_URL, "\(tls ? "https" : "http")://127.0.0.1:\(port)\(path)")
        if tls {
            _ = swcurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            _ = swcurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        _ = swcurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = swcurl_setopt_long(handle, CURLOPT_TIMEOUT, 20)
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        _ = swcurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        let collector = Collector()
        _ = swcurl_setopt_datacb(handle, CURLOPT_WRITEFUNCTION) { pointer, size, count, context in
            let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
            collector.bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: size * count))
            return size * count
        }
        _ = swcurl_setopt_ptr(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(collector).toOpaque())
        var status = 0
        let perform: () -> Void = {
            guard curl_easy_perform(handle) == CURLE_OK else { status = -1; return }
            var code = 0
            _ = swcurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
            status = code
        }
        if let body {
            _ = swcurl_setopt_long(handle, CURLOPT_POST, 1)
            body.withUnsafeBytes { bytes in
                _ = swcurl_setopt_ptr(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                _ = swcurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                perform()
            }
        } else {
            if method == "HEAD" {
                _ = swcurl_setopt_long(handle, CURLOPT_NOBODY, 1)
            } else if method != "GET" {
                _ = swcurl_setopt_str(handle, CURLOPT_CUSTOMREQUEST, method)
            }
            perform()
        }
        return Response(status: status, body: String(decoding: collector.bytes, as: UTF8.self))
    }

    /// Sends `head` (and `body`) on a raw socket and returns the status line's code and the body.
    func raw(_ head: String, body: [UInt8] = [], timeoutMicroseconds: Int = 10_000_000) -> Response {
        guard let connection = connection() else { return Response(status: -1, body: "") }
        connection.send(Array(head.utf8) + body)
        let text = connection.receiveResponse(seconds: Double(timeoutMicroseconds) / 1_000_000).text
        let parts = text.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.split(separator: "\r\n").first ?? ""
        let code = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
        return Response(status: code, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// A loopback connection the test drives by hand: `send` parts of a request, `receive`
    /// what has arrived, to hold a request half-sent while others run.
    func connection() -> RawConnection? { RawConnection(port: port) }

    static func contentLength(_ head: Substring) -> Int? {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The http sink's own gzip writer, so the tests send what the sink sends.
    static func gzip(_ input: [UInt8]) -> [UInt8] {
        GzipDeflater.gzip(input)
    }
}

/// One TCP connection to 127.0.0.1, closed by `close()` or on deinit.
final class RawConnection {
    private(set) var fd: Int32

    init?(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else {
            // errno stays the failure's (for the caller to read), and deinit, which runs for a
            // failed init too, does not close the number again (another thread's socket by then).
            let failure = errno
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
            errno = failure
            return nil
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Whether all of `bytes` went out (false once the server has closed the connection).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// What arrives until the server has sent a whole response head (and its `Content-Length`
    /// of body), closes the connection, or `seconds` pass; `closed` tells whether it closed.
    func receiveResponse(seconds: Double = 10) -> (text: String, closed: Bool) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 || (n < 0 && errno == ECONNRESET) { return (String(decoding: received, as: UTF8.self), true) }
            if n < 0 { break }
            received.append(contentsOf: buffer[0..<n])
            let text = String(decoding: received, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n") {
                let head = text[..<split.lowerBound]
                let bodyCount = text.utf8.count - text.utf8.distance(from: text.startIndex, to: split.upperBound)
                if bodyCount >= HTTPTestClient.contentLength(head) ?? 0 { break }
            }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}
