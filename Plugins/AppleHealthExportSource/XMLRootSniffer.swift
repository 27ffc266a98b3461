/// Finds the name of an XML document's root element in its first bytes, without a parser: past
/// the XML declaration, comments, processing instructions and the DOCTYPE (a DTD's declarations
/// one by one), the first start tag. Enough to refuse a file that is plainly another document (a
/// web page, an SVG image, an RSS feed) before anything is created; the parser decides the rest.
enum XMLRootSniffer {
    /// The root element's name and the line (1-based) its tag starts on; nil when `head` ends
    /// before the name does (a file cut short, a DTD longer than `head`) or holds no start tag.
    static func root(_ head: UnsafeRawBufferPointer) -> (name: String, line: Int)? {
        let less = UInt8(ascii: "<")
        var index = 0
        while index < head.count {
            guard head[index] == less else {
                index += 1
                continue
            }
            guard index + 1 < head.count else { return nil }
            let next = head[index + 1]
            if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                // A comment ends at `-->`, anything else that starts `<!` or `<?` at its next `>`
                // (a DOCTYPE's internal subset then reads as the declarations it holds).
                let isComment = starts(head, with: "<!--", at: index)
                let end = isComment ? find(head, "-->", from: index + 4) : find(head, ">", from: index + 2)
                guard let end else { return nil }
                index = end + 1
                continue
            }
            var end = index + 1
            while end < head.count, !isDelimiter(head[end]) { end += 1 }
            guard end < head.count, end > index + 1 else { return nil }
            let line = 1 + head[..<index].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            return (String(decoding: UnsafeRawBufferPointer(rebasing: head[(index + 1)..<end]), as: UTF8.self), line)
        }
        return nil
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
    }

    private static func starts(_ head: UnsafeRawBufferPointer, with text: String, at index: Int) -> Bool {
        let bytes = Array(text.utf8)
        guard index + bytes.count <= head.count else { return false }
        return bytes.indices.allSatisfy { head[index + $0] == bytes[$0] }
    }

    /// The index of the last byte of the first `text` at or after `start`.
    private static func find(_ head: UnsafeRawBufferPointer, _ text: String, from start: Int) -> Int? {
        let bytes = Array(text.utf8)
        var index = start
        while index + bytes.count <= head.count {
            if bytes.indices.allSatisfy({ head[index + $0] == bytes[$0] }) { return index + bytes.count - 1 }
            index += 1
        }
        return nil
    }
}
