import CCurl
import Foundation

/// A blocking HTTP client on one libcurl easy handle (connections are kept alive between
/// requests). Used from one thread at a time: the sink worker's.
final class CurlSession {
    struct Response {
        var status: Int
        var body: [UInt8]
        /// The seconds the reply's `Retry-After` asks to wait (its seconds, or its date from now),
        /// nil without one.
        var retryAfter: Int?
        /// Where a redirect (3xx with `Location`) leads, as an absolute URL (libcurl resolves a
        /// relative one); nil without one. Not followed.
        var location: String?
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct TransportError: Error, CustomStringConvertible {
        var url: String
        var message: String
        /// libcurl's `CURLcode`.
        var code: Int = 0
        /// The session's per-request timeout.
        var timeoutSeconds: Int = 0
        var description: String { "\(url): \(message)" }
    }

    private final class Collector {
        var bytes: [UInt8] = []
        /// A reply listing the 5,000 elements of a body as skipped, each with its reason, fits.
        let limit = 8 << 20
    }

    private let handle: UnsafeMutableRawPointer
    let timeoutSeconds: Int
    /// The PEM file of the certificates to trust instead of the system's, when given.
    let caFile: String?
    /// libcurl's message of a failed transfer, which says more than its code's (which
    /// certificate check failed, and why).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init(timeoutSeconds: Int, caFile: String? = nil) {
        Self.initializeOnce
        handle = curl_easy_init()
        self.timeoutSeconds = timeoutSeconds
        self.caFile = caFile
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    private static let initializeOnce: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `method` to `url` with `headers` and `body` (POST when a body is given); an error
    /// names it as `shownAs` (the url without its password).
    func send(_ url: String, shownAs shown: String? = nil, headers: [String], body: [UInt8]?) throws -> Response {
        curl_easy_reset(handle)
        _ = swcurl_setopt_str(handle, CURLOPT_URL, url)
        _ = swcurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = swcurl_setopt_long(handle, CURLOPT_TIMEOUT, timeoutSeconds)
        _ = swcurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, min(timeoutSeconds, 10))
        if let caFile { _ = swcurl_setopt_str(handle, CURLOPT_CAINFO, caFile) }
        errorBuffer[0] = 0
        _ = swcurl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        var list: UnsafeMutablePointer<curl_slist>?
        // No `Expect: 100-continue` round trip before large bodies.
        for header in headers + ["Expect:"] { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        _ = swcurl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        let collector = Collector()
        _ = swcurl_setopt_datacb(handle, CURLOPT_WRITEFUNCTION) { pointer, size, count, context in
            let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
            if collector.bytes.count < collector.limit {
                collector.bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: size * count))
            }
            return size * count
        }
        _ = swcurl_setopt_ptr(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(collector).toOpaque())
        var code = CURLE_OK
        if let body {
            _ = swcurl_setopt_long(handle, CURLOPT_POST, 1)
            body.withUnsafeBytes { bytes in
                // Not copied by libcurl: the buffer lives until perform returns.
                _ = swcurl_setopt_ptr(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                _ = swcurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                code = curl_easy_perform(handle)
            }
        } else {
            code = curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            throw TransportError(url: shown ?? url, message: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail,
                                 code: Int(code.rawValue), timeoutSeconds: timeoutSeconds)
        }
        var status = 0
        _ = swcurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var retryAfter: curl_off_t = 0
        _ = swcurl_getinfo_off(handle, CURLINFO_RETRY_AFTER, &retryAfter)
        var location: UnsafeMutablePointer<CChar>?
        _ = swcurl_getinfo_str(handle, CURLINFO_REDIRECT_URL, &location)
        return Response(status: status, body: collector.bytes, retryAfter: retryAfter > 0 ? Int(retryAfter) : nil,
                        location: location.map { String(cString: $0) })
    }
}
