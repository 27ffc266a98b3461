import CArchive
import Foundation
import HealthRouterCore

/// A zip file read with libarchive, entry by entry, streaming (ZIP64 included).
/// libarchive uses the central directory when the file can seek, so skipping an entry
/// costs a seek, not a decompression.
final class ZipArchive {
    struct Entry {
        /// The path inside the archive (`apple_health_export/export.xml`).
        var path: String
        /// The entry's position in the archive, from 0.
        var index: Int
        var isDirectory: Bool
        /// False when libarchive gave no name (`path` then says so): the name tells nothing.
        var hasName: Bool
    }

    private let archive: OpaquePointer
    private let path: String
    private var nextIndex = 0
    private var currentPath = ""

    /// A warning libarchive gave while reading the current entry (`ZIP bad CRC`), if any.
    private(set) var entryWarning: String?
    /// Whether the current entry's data could not be read while the archive can go on to the
    /// next entry (libarchive's ARCHIVE_FAILED: an unsupported compression method, an encrypted
    /// entry), unlike a zip that ends early or a damaged deflate stream (ARCHIVE_FATAL in
    /// libarchive 3.6).
    private(set) var entryUnreadable = false
    /// The part of libarchive's current data block not yet handed out.
    private var block: UnsafeRawPointer?
    private var blockRemaining = 0
    private var entryEnded = false

    init(path: String) throws {
        self.path = path
        guard let archive = archive_read_new() else {
            throw SourceError(input: path, problem: "libarchive could not allocate a reader")
        }
        self.archive = archive
        archive_read_support_format_zip(archive)
        let status = Self.withUTF8Locale { archive_read_open_filename(archive, path, ExportFile.chunkSize) }
        // Every property is set: `deinit` runs when this throws, and frees the reader (freed here
        // too, libarchive aborted the process: a zip deleted between two passes over it).
        if status != ARCHIVE_OK { throw failure("cannot open the zip file") }
    }

    deinit {
        archive_read_free(archive)
    }

    /// The next entry, or nil after the last one.
    func nextEntry() throws -> Entry? {
        // Of the entry before: a header that cannot be read is no unreadable entry to step past.
        entryUnreadable = false
        var entry: OpaquePointer?
        let (status, name) = Self.withUTF8Locale { () -> (Int32, String?) in
            let status = archive_read_next_header(archive, &entry)
            guard status >= ARCHIVE_WARN, let entry else { return (status, nil) }
            let name = archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)
            return (status, name.map { String(cString: $0) })
        }
        if status == ARCHIVE_EOF { return nil }
        // ARCHIVE_WARN: e.g. a name in a charset libarchive cannot convert; the entry is still readable.
        guard status >= ARCHIVE_WARN, let entry else { throw failure("cannot read the zip file's next entry") }
        // Without a readable name the entry still counts: the data file is found by content.
        currentPath = name ?? "(entry \(nextIndex) with an unreadable name)"
        entryWarning = nil
        entryUnreadable = false
        block = nil
        blockRemaining = 0
        entryEnded = false
        let isDirectory = archive_entry_filetype(entry) == 0o040000 /* AE_IFDIR, a cast macro Swift does not import */ || currentPath.hasSuffix("/")
        defer { nextIndex += 1 }
        return Entry(path: currentPath, index: nextIndex, isDirectory: isDirectory, hasName: name != nil)
    }

    /// Reads the current entry's next bytes into `buffer`; 0 at the entry's end.
    ///
    /// Uses `archive_read_data_block`: on a checksum mismatch libarchive returns the
    /// entry's last block together with ARCHIVE_WARN, which `archive_read_data` would drop.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while blockRemaining == 0 {
            if entryEnded { return 0 }
            var pointer: UnsafeRawPointer?
            var size = 0
            var offset: Int64 = 0
            let status = Self.withUTF8Locale { archive_read_data_block(archive, &pointer, &size, &offset) }
            switch status {
            case ARCHIVE_EOF:
                entryEnded = true
                return 0
            case ARCHIVE_RETRY:
                continue
            case ARCHIVE_OK:
                break
            case ARCHIVE_WARN:
                // A checksum that did not match: the data is delivered, the damage reported.
                // One line: it goes into a summary's line.
                entryWarning = archive_error_string(archive)
                    .map { String(cString: $0).split(whereSeparator: \.isNewline).joined(separator: " ") } ?? "warning"
                entryEnded = true
            default:
                entryUnreadable = status == ARCHIVE_FAILED
                throw failure("cannot read \(currentPath) from the zip file", entry: currentPath)
            }
            block = pointer
            blockRemaining = pointer == nil ? 0 : size
        }
        let count = min(blockRemaining, buffer.count)
        buffer.baseAddress!.copyMemory(from: block!, byteCount: count)
        block = block! + count
        blockRemaining -= count
        return count
    }

    /// Fills `buffer` from the current entry as far as it goes; returns the count.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Appends the rest of the current entry to `bytes`, read through `buffer`; false (and `bytes`
    /// cut short) when the entry holds more than `limit` bytes in all.
    func readRest(appendingTo bytes: inout [UInt8], through buffer: UnsafeMutableRawBufferPointer, limit: Int) throws -> Bool {
        while true {
            let count = try read(into: buffer)
            if count == 0 { return true }
            guard bytes.count + count <= limit else { return false }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    nonisolated(unsafe) private static let utf8Locale: locale_t? =
        newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) ?? newlocale(LC_CTYPE_MASK, "en_US.UTF-8", nil)

    private static func withUTF8Locale<T>(_ body: () throws -> T) rethrows -> T {
        guard let utf8Locale else { return try body() }
        let previous = uselocale(utf8Locale)
        defer { uselocale(previous) }
        return try body()
    }

    /// Bytes of the zip file consumed so far.
    var compressedBytesConsumed: Int64 { archive_filter_bytes(archive, -1) }

    private func failure(_ what: String, entry: String? = nil) -> SourceError {
        let detail = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        // libarchive says "Passphrase required for this entry" (or "Incorrect passphrase"): not damage.
        let encrypted = detail.lowercased().contains("passphrase") || detail.lowercased().contains("encrypt")
        return SourceError(input: path, location: entry.map { "entry \($0)" }, problem: "\(what): \(detail)",
                           hint: encrypted
                               ? "the zip is encrypted (zip -e or a password set when it was made): unpack it with its password and import the export.xml inside, or zip it again without one"
                               : "the zip file is damaged or incomplete (truncated by a copy or a download?): copy it again in full, or export again from the Health app (Profile → Export All Health Data)")
    }
}
