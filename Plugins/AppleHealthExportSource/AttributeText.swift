import Foundation

/// Attribute values as libxml2's SAX2 interface hands them over: byte ranges, not
/// NUL-terminated, and with `&` still escaped as `&#38;` (libxml2 keeps that one
/// reference unless XML_PARSE_NOENT is set, which would also enable external entities).
enum AttributeText {
    /// The text of `bytes` with `&#38;` turned back into `&`.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return "" }
        guard memchr(base, Int32(UInt8(ascii: "&")), bytes.count) != nil else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded = [UInt8]()
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "#"),
               bytes[index + 2] == UInt8(ascii: "3"), bytes[index + 3] == UInt8(ascii: "8"),
               bytes[index + 4] == UInt8(ascii: ";") {
                decoded.append(UInt8(ascii: "&"))
                index += 5
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
