import CCrypto
import Synchronization

/// Name-based UUIDs (RFC 4122 version 5: SHA-1) through libcrypto.
public enum UUIDv5 {
    /// healthrouter's namespace for sample fingerprints. Never change it: every
    /// stored id derived from a fingerprint depends on it.
    public static let sampleNamespace: [UInt8] = [
        0x6f, 0x1c, 0x3e, 0x52, 0x8a, 0x41, 0x4d, 0x2b, 0x9e, 0x07, 0x53, 0xc4, 0xa1, 0x0d, 0x7b, 0x11,
    ]

    /// The 16 bytes of the version-5 UUID of `name` in `namespace`.
    public static func bytes(namespace: [UInt8], name: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        out.withUnsafeMutableBufferPointer { uuid in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE)) { digest in
                let context = EVP_MD_CTX_new()
                defer { EVP_MD_CTX_free(context) }
                EVP_DigestInit_ex(context, sha1, nil)
                namespace.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, min($0.count, 16)) }
                EVP_DigestUpdate(context, name.baseAddress, name.count)
                var length: UInt32 = 0
                EVP_DigestFinal_ex(context, digest.baseAddress, &length)
                setVersion(from: digest.baseAddress!, to: uuid.baseAddress!)
            }
        }
        return out
    }

    /// The canonical upper-case text form (`XXXXXXXX-XXXX-5XXX-…`).
    public static func string(namespace: [UInt8] = sampleNamespace, name: String) -> String {
        var copy = name
        return copy.withUTF8 { string(namespace: namespace, name: UnsafeRawBufferPointer($0)) }
    }

    /// The canonical upper-case text form of the UUID of the UTF-8 bytes `name`.
    public static func string(namespace: [UInt8] = sampleNamespace, name: UnsafeRawBufferPointer) -> String {
        let count = 16 + name.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            namespace.withUnsafeBufferPointer { source in
                for index in 0..<16 { buffer[index] = index < source.count ? source[index] : 0 }
            }
            if let base = name.baseAddress {
                UnsafeMutableRawPointer(buffer.baseAddress! + 16).copyMemory(from: base, byteCount: name.count)
            }
            return string(namespacedName: UnsafeRawBufferPointer(buffer))
        }
    }

    /// The canonical text form of the UUID whose namespace and name are already
    /// concatenated in `namespacedName` (16 namespace bytes, then the name): one
    /// digest call and one String allocation, for hot paths that build the name in place.
    public static func string(namespacedName: UnsafeRawBufferPointer) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(EVP_MAX_MD_SIZE) + 16 + 36) { scratch in
            let digest = scratch.baseAddress!
            let uuid = digest + Int(EVP_MAX_MD_SIZE)
            let text = uuid + 16
            sha1Digest(namespacedName, into: digest)
            setVersion(from: digest, to: uuid)
            writeText(UnsafeBufferPointer(start: uuid, count: 16), to: text)
            return String(decoding: UnsafeBufferPointer(start: text, count: 36), as: UTF8.self)
        }
    }

    /// Formats 16 bytes as an upper-case UUID string.
    public static func format(_ uuid: [UInt8]) -> String {
        precondition(uuid.count == 16, "a UUID has 16 bytes")
        return uuid.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
                writeText(bytes, to: text.baseAddress!)
                return String(decoding: text, as: UTF8.self)
            }
        }
    }

    /// SHA-1, fetched once: OpenSSL 3 otherwise looks the implementation up on every digest.
    /// An `EVP_MD` is immutable and safe to share between threads once fetched.
    nonisolated(unsafe) private static let sha1: OpaquePointer? = EVP_MD_fetch(nil, "SHA1", nil) ?? EVP_sha1()

    /// SHA-1 of `bytes` into `digest` (at least `EVP_MAX_MD_SIZE` bytes), with a pooled
    /// context: creating and initialising a context costs several times the hash itself.
    private static func sha1Digest(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>) {
        let pooled = contextPool.withLock { $0.popLast() }
        let context = pooled.flatMap { OpaquePointer(bitPattern: $0) } ?? EVP_MD_CTX_new()
        var length: UInt32 = 0
        EVP_DigestInit_ex2(context, sha1, nil)
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
        EVP_DigestFinal_ex(context, digest, &length)
        let address = UInt(bitPattern: context)
        let kept = contextPool.withLock { pool -> Bool in
            guard pool.count < maximumPooledContexts else { return false }
            pool.append(address)
            return true
        }
        if !kept { EVP_MD_CTX_free(context) }
    }

    /// Idle digest contexts (as addresses), reused across calls and threads.
    private static let contextPool = Mutex<[UInt]>([])
    private static let maximumPooledContexts = 64

    /// The first 16 digest bytes with the version (5) and RFC 4122 variant bits set.
    @inline(__always)
    private static func setVersion(from digest: UnsafePointer<UInt8>, to uuid: UnsafeMutablePointer<UInt8>) {
        uuid.update(from: digest, count: 16)
        uuid[6] = (uuid[6] & 0x0F) | 0x50
        uuid[8] = (uuid[8] & 0x3F) | 0x80
    }

    private static let hexDigits: StaticString = "0123456789ABCDEF"

    /// Writes the 36-byte text form of 16 bytes (`8-4-4-4-12` upper-case hex digits).
    @inline(__always)
    private static func writeText(_ uuid: UnsafeBufferPointer<UInt8>, to text: UnsafeMutablePointer<UInt8>) {
        let hex = hexDigits.utf8Start
        var at = 0
        for index in 0..<16 {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                text[at] = UInt8(ascii: "-")
                at += 1
            }
            let byte = uuid[index]
            text[at] = hex[Int(byte >> 4)]
            text[at + 1] = hex[Int(byte & 0x0F)]
            at += 2
        }
    }
}
