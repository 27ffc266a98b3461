import Foundation
import HealthRouterCore

/// The input file: opened, sized, and classified by its first bytes (not its name).
struct ExportFile {
    enum Format { case zip, xml }

    let path: String
    let size: Int64
    let format: Format

    /// Chunk size for reads from disk and from the archive.
    static let chunkSize = 256 << 10

    /// Opens `path` and looks at its first bytes: `PK\x03\x04` / `PK\x05\x06` is a zip,
    /// `<` (after a byte-order mark and white space) is XML. Throws a `SourceError` for a
    /// missing, unreadable or empty file, and for one that is neither.
    init(path: String) throws {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw SourceError(input: path, problem: "cannot open the export: \(reason)",
                              hint: "give the export.zip (or export.xml) the Health app wrote", cannotRead: true)
        }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw SourceError(input: path, problem: "this is a folder, not an export file",
                              hint: "give the export.zip, or the export.xml inside the unpacked folder")
        }
        size = Int64(info.st_size)
        guard size > 0 else {
            throw SourceError(input: path, problem: "the file is empty (0 bytes)",
                              hint: "the Health app sometimes writes an empty export: export again (Profile → Export All Health Data) and copy the whole file")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SourceError(input: path, problem: "cannot read the export: \(reason)",
                              hint: "check the file's permissions", cannotRead: true)
        }
        defer { close(descriptor) }
        var magic = [UInt8](repeating: 0, count: Self.sniffLength)
        var count = Self.fill(&magic, from: 0, reading: descriptor)
        let isZip = count >= 4 && magic[0] == 0x50 && magic[1] == 0x4B
            && ((magic[2] == 3 && magic[3] == 4) || (magic[2] == 5 && magic[3] == 6))
        if isZip {
            format = .zip
            return
        }
        // UTF-16 (a byte-order mark, or `<` after white space, each character beside a zero byte):
        // an editor saved it so.
        let head = magic.prefix(count)
        if UTF16Text.isUTF32(head) {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            let ext = (path as NSString).pathExtension
            throw SourceError(input: path, problem: "this file is UTF-32; healthrouter reads an export.xml, JSON and NDJSON in UTF-8",
                              hint: "convert it: \(UTF16Text.conversionCommand(path, head: head, output: stem + "-utf8" + (ext.isEmpty ? "" : "." + ext)))")
        }
        if UTF16Text.isUTF16(head),
           magic[0] == 0xFF || magic[0] == 0xFE || UTF16Text.firstASCIICharacter(head) == UInt8(ascii: "<") {
            throw SourceError(input: path, problem: "this XML is UTF-16; healthrouter reads export.xml in UTF-8, as the Health app writes it",
                              hint: "convert it: \(UTF16Text.conversionCommand(path, head: head, output: "export-utf8.xml")) (or give the export.zip the Health app wrote)")
        }
        // XML starts with `<`, after an optional UTF-8 byte-order mark and white space.
        var first = 0
        if count >= 3, magic[0] == 0xEF, magic[1] == 0xBB, magic[2] == 0xBF { first = 3 }
        let leading = magic.withUnsafeBytes { LeadingWhiteSpace.measure(UnsafeRawBufferPointer(rebasing: $0[first..<max(count, first)])) }
        first += leading.count
        // Compressed by another tool than zip: named, with the command that undoes it.
        if let refusal = CompressedFile.refusal(path, head: head) {
            throw SourceError(input: path, problem: refusal.problem, hint: refusal.hint)
        }
        // White space past the first bytes: the document starts at the first other byte (an
        // export.xml led by more than 64 KiB of blank lines was called neither a zip file nor XML),
        // up to `LeadingWhiteSpace.limit` (64 MiB) of it: a file of 512 MiB of spaces was read to its
        // end. The bytes from there are the ones looked at; `skippedLines` lines were passed.
        var skippedLines = 0
        if first >= count, count == magic.count {
            skippedLines = leading.lineFeeds
            guard let rest = Self.readPastWhiteSpace(descriptor, into: &magic, passed: leading.count, lines: &skippedLines) else {
                throw SourceError(input: path, problem: "the file begins with \(LeadingWhiteSpace.refusal) before anything "
                                      + "else: it is not an Apple Health export (which begins with <?xml or <HealthData), nor NDJSON",
                                  hint: "if the data follows them, remove the blank lines that lead it (sed -i "
                                      + "'/[^[:space:]]/,$!d' FILE); else give the export.zip the Health app wrote (Profile → "
                                      + "Export All Health Data), the export.xml inside it, or a file `healthrouter dump` wrote")
            }
            count = rest
            first = 0
        }
        // Nothing but white space (and a byte-order mark): nothing to import.
        if first >= count {
            throw SourceError(input: path, problem: "the file holds nothing but white space",
                              hint: "copy the export again: give the export.zip the Health app wrote (Profile → Export All "
                                + "Health Data), the export.xml inside it, or a file `healthrouter dump` wrote")
        }
        guard first < count, magic[first] == UInt8(ascii: "<") else {
            throw SourceError(input: path, problem: "this is not an Apple Health export (neither a zip file nor XML)",
                              hint: "give the export.zip the Health app wrote (Profile → Export All Health Data), or the export.xml inside it")
        }
        // Another XML document (a web page, an image) is refused before anything is created. An
        // export's DOCTYPE names HealthData (its DTD, which the sniffer walks, is left to the parser).
        let root = magic.withUnsafeBytes { bytes -> (name: String, line: Int)? in
            let head = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
            return ZipExportReader.contains(head, "<!DOCTYPE HealthData") ? nil : XMLRootSniffer.root(head)
        }
        if let root, root.name != "HealthData" {
            throw SourceError(input: path, location: "line \(root.line + skippedLines)",
                              problem: "this is not an Apple Health export: the document element is <\(root.name)>, not <HealthData>",
                              hint: root.name == "ClinicalDocument"
                                ? "this is export_cda.xml (clinical documents): give the export.xml next to it, or the export.zip"
                                : "give the export.zip the Health app wrote (Profile → Export All Health Data), or the export.xml inside it")
        }
        format = .xml
    }

    /// How much of a file's start is read to classify it.
    static let sniffLength = 64 << 10

    /// Reads `descriptor` on from where it stands past white space (spaces, tabs, line ends), to its
    /// first other byte or its end, adding the LFs passed to `lines`; fills `head` with the bytes
    /// from that first other byte on (as many as it holds, or to the end) and returns how many.
    /// 0: the rest of the file is white space. nil: the white space, with the `passed` bytes of it
    /// before, is longer than `LeadingWhiteSpace.limit` (read no further).
    private static func readPastWhiteSpace(_ descriptor: Int32, into head: inout [UInt8], passed: Int, lines: inout Int) -> Int? {
        var passed = passed
        while true {
            let count = fill(&head, from: 0, reading: descriptor)
            guard count > 0 else { return 0 }
            let leading = head.withUnsafeBytes { LeadingWhiteSpace.measure(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            lines += leading.lineFeeds
            passed += leading.count
            if passed > LeadingWhiteSpace.limit { return nil }
            let other = leading.count
            guard other < count else {
                if count < head.count { return 0 }
                continue
            }
            head.replaceSubrange(0..<count - other, with: head[other..<count])
            return count < head.count ? count - other : fill(&head, from: count - other, reading: descriptor)
        }
    }

    /// Reads `descriptor` into `buffer` from index `start` until it is full or the file ends;
    /// returns how many bytes `buffer` holds.
    private static func fill(_ buffer: inout [UInt8], from start: Int, reading descriptor: Int32) -> Int {
        var count = start
        while count < buffer.count {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            count += got
        }
        return count
    }
}
