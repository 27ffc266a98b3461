/// The white space (spaces, tabs, line ends) a file may begin with, which the sniffs that tell
/// what a file is (a plain export.xml, a zip entry that may be the Health data, an NDJSON file)
/// read past to its first other byte, up to `limit` bytes.
public enum LeadingWhiteSpace {
    /// The most white space a file may begin with (after a UTF-8 byte-order mark) and still be
    /// looked at: 64 MiB. A real export begins with `<?xml`, `<!DOCTYPE` or `<HealthData` after a
    /// few bytes, and one led by blank lines (a file edited, or joined to another) by some KiB;
    /// past the limit the file is no export, where a zip entry of 512 MiB of spaces was read to
    /// its end (73 s) before it was refused.
    public static let limit = 64 << 20

    /// `more than 64 MiB of white space`: what a refused file begins with.
    public static let refusal = "more than \(limit >> 20) MiB of white space"

    /// How many bytes `bytes` begins with that are white space (space, tab, LF, CR), and how many
    /// of those are line feeds.
    public static func measure(_ bytes: UnsafeRawBufferPointer) -> (count: Int, lineFeeds: Int) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (0, 0) }
        let count = bytes.count
        var index = 0, lineFeeds = 0
        while index < count {
            let byte = base[index]
            if byte == 0x0A {
                lineFeeds += 1
            } else if byte != 0x20 && byte != 0x09 && byte != 0x0D {
                break
            }
            index += 1
        }
        return (index, lineFeeds)
    }
}
