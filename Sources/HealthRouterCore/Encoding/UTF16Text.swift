/// Recognises text saved as UTF-16 (an editor, PowerShell's `>`, Windows' Notepad do), which the
/// sources refuse with a hint to convert it, rather than reading it as garbled UTF-8.
public enum UTF16Text {
    /// Whether `head`, a file's first bytes, is UTF-16: a byte-order mark, or its first two
    /// characters ASCII, each beside a zero byte (either byte order).
    public static func isUTF16(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head.prefix(4))
        guard bytes.count >= 4 else { return false }
        if (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) { return true }
        return (bytes[0] != 0 && bytes[1] == 0 && bytes[2] != 0 && bytes[3] == 0)
            || (bytes[0] == 0 && bytes[1] != 0 && bytes[2] == 0 && bytes[3] != 0)
    }

    /// The first character of `head` (UTF-16) that is not white space or a byte-order mark, when
    /// it is ASCII; nil when `head` is not UTF-16 or holds none.
    public static func firstASCIICharacter(_ head: some Collection<UInt8>) -> UInt8? {
        let bytes = Array(head)
        guard isUTF16(bytes) else { return nil }
        // Big-endian: a mark FE FF, or the zero byte first.
        let bigEndian = bytes[0] == 0xFE || (bytes[0] == 0 && bytes[1] != 0xFE)
        var index = 0
        while index + 1 < bytes.count {
            let unit = bigEndian ? UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                                 : UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index])
            index += 2
            if unit == 0xFEFF || unit == 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D { continue }
            return unit < 0x80 ? UInt8(unit) : nil
        }
        return nil
    }

    /// The name iconv takes for `head`'s encoding: `UTF-16` with a byte-order mark (which tells
    /// the byte order), else `UTF-16LE` or `UTF-16BE` (without a mark glibc's iconv takes
    /// little-endian and macOS's big-endian, so each would garble the other).
    public static func iconvName(_ head: some Collection<UInt8>) -> String {
        let bytes = Array(head.prefix(2))
        guard bytes.count == 2 else { return "UTF-16" }
        if (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) { return "UTF-16" }
        return bytes[0] == 0 ? "UTF-16BE" : "UTF-16LE"
    }

    /// Whether `head` is UTF-32 (a byte-order mark, or an ASCII character and three zero bytes),
    /// which `isUTF16` would take for UTF-16 by its mark.
    public static func isUTF32(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head.prefix(4))
        guard bytes.count == 4 else { return false }
        return bytes == [0xFF, 0xFE, 0, 0] || bytes == [0, 0, 0xFE, 0xFF]
            || (bytes[0] != 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 0)
            || (bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] != 0)
    }

    /// A shell command converting `path` (whose first bytes are `head`) to UTF-8 as `output`,
    /// both quoted for the shell.
    public static func conversionCommand(_ path: String, head: some Collection<UInt8>, output: String) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let bytes = Array(head.prefix(4))
        let marked32 = bytes == [0xFF, 0xFE, 0, 0] || bytes == [0, 0, 0xFE, 0xFF]
        let encoding = !isUTF32(head) ? iconvName(head) : marked32 ? "UTF-32" : bytes.first == 0 ? "UTF-32BE" : "UTF-32LE"
        return "iconv -f \(encoding) -t UTF-8 " + quoted(path) + " > " + quoted(output)
    }
}
