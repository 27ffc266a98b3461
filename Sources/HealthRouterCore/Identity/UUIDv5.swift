import CCrypto

/// Name-based UUIDs (RFC 4122 version 5: SHA-1) through libcrypto.
public enum UUIDv5 {
    /// healthrouter's namespace for sample fingerprints. Never change it: every
    /// stored id derived from a fingerprint depends on it.
    public static let sampleNamespace: [UInt8] = [
        0x6f, 0x1c, 0x3e, 0x52, 0x8a, 0x41, 0x4d, 0x2b, 0x9e, 0x07, 0x53, 0xc4, 0xa1, 0x0d, 0x7b, 0x11,
    ]

    /// The 16 bytes of the version-5 UUID of `name` in `namespace`.
    public static func bytes(namespace: [UInt8], name: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, EVP_sha1(), nil)
        namespace.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, 16) }
        EVP_DigestUpdate(context, name.baseAddress, name.count)
        EVP_DigestFinal_ex(context, &digest, &length)
        var out = Array(digest[0..<16])
        out[6] = (out[6] & 0x0F) | 0x50
        out[8] = (out[8] & 0x3F) | 0x80
        return out
    }

    /// The canonical upper-case text form (`XXXXXXXX-XXXX-5XXX-…`).
    public static func string(namespace: [UInt8] = sampleNamespace, name: String) -> String {
        var copy = name
        return format(copy.withUTF8 { bytes(namespace: namespace, name: UnsafeRawBufferPointer($0)) })
    }

    /// Formats 16 bytes as an upper-case UUID string.
    public static func format(_ uuid: [UInt8]) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, byte) in uuid.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
