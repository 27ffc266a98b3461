/// Recognises a file compressed by a tool other than zip (gzip, bzip2, xz, zstd) by its first
/// bytes, which the sources refuse with the command that decompresses it.
public enum CompressedFile {
    /// The compression of a file whose first bytes are `head`, with the command that writes it
    /// decompressed to standard output; nil when it is none of them.
    public static func kind(_ head: some Collection<UInt8>) -> (name: String, command: String)? {
        let formats: [(magic: [UInt8], name: String, command: String)] = [
            ([0x1F, 0x8B], "gzip", "gunzip -c"), ([0x42, 0x5A, 0x68], "bzip2", "bunzip2 -c"),
            ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz", "xz -dc"), ([0x28, 0xB5, 0x2F, 0xFD], "zstd", "zstd -dc"),
        ]
        return formats.first { head.starts(with: $0.magic) }.map { ($0.name, $0.command) }
    }

    /// The problem and hint for `path` (whose first bytes are `head`) when it is compressed.
    public static func refusal(_ path: String, head: some Collection<UInt8>) -> (problem: String, hint: String)? {
        guard let kind = kind(head) else { return nil }
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        // Written next to it, under its name without the suffix (or with `-plain`).
        let suffixes = [".gz", ".bz2", ".xz", ".zst", ".gzip"]
        let plain = suffixes.first(where: { path.hasSuffix($0) }).map { String(path.dropLast($0.count)) }
            ?? (path.hasSuffix(".ndjson") ? String(path.dropLast(7)) + "-plain.ndjson" : path + ".plain")
        return ("this file is \(kind.name)-compressed; healthrouter reads an export.zip, an export.xml, Health Auto Export's JSON or NDJSON as they are",
                "Decompress it first (\(kind.command) \(quoted(path)) > \(quoted(plain))) and import what it holds.")
    }
}
