import Foundation

/// One append-only `.ndjson` file: opened by `flush` (never through a symbolic link, only a regular
/// file the running user owns: `NDJSONRegularFile`), kept open between writes until its owner
/// closes it (`NDJSONOpenFiles` keeps a bounded number open), lines buffered until `flush`.
///
/// `committedLength` is what the index covers; bytes beyond it belong to a batch not yet
/// committed and are cut off again by `discardUncommitted` when the batch fails, also when
/// the file was closed since its `flush`.
final class NDJSONFile {
    let path: String
    private(set) var committedLength: Int64
    /// Lines waiting for `flush`.
    var buffer: [UInt8] = []
    /// True when `open` created the file (its directory entry needs an fsync).
    private(set) var created = false
    private var descriptor: Int32 = -1
    /// Whether `flush` wrote bytes the index does not cover yet (until `commit` or `discardUncommitted`).
    private var wroteUncommitted = false

    init(path: String, committedLength: Int64) {
        self.path = path
        self.committedLength = committedLength
    }

    deinit { close() }

    /// The length once the buffer is written.
    var pendingLength: Int64 { committedLength + Int64(buffer.count) }

    /// Whether the file's descriptor is open.
    var isOpen: Bool { descriptor >= 0 }

    /// Writes the buffer at the end of the file and fsyncs it: once it returns, the file may be
    /// closed before the batch's commit.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try openIfNeeded()
        wroteUncommitted = true
        try buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw NDJSONFileError(path: path, operation: "write", code: errno)
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw NDJSONFileError(path: path, operation: "fsync", code: errno) }
    }

    /// Marks the flushed buffer as covered by the index and empties it (a closed file's buffer
    /// gives its memory back: only open files keep theirs for the next batch).
    func commit() {
        committedLength += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: isOpen)
        wroteUncommitted = false
    }

    /// Empties the buffer and cuts the file back to `committedLength`, through its descriptor
    /// (opened again for that when it was closed since `flush`), never by path.
    func discardUncommitted() throws {
        buffer.removeAll(keepingCapacity: isOpen)
        guard wroteUncommitted else { return }
        var fd = descriptor
        if fd < 0 { fd = try NDJSONRegularFile.open(path, O_WRONLY).descriptor }
        defer { if fd != descriptor { _ = Foundation.close(fd) } }
        guard ftruncate(fd, off_t(committedLength)) == 0 else {
            throw NDJSONFileError(path: path, operation: "truncate", code: errno)
        }
        _ = fsync(fd)
        wroteUncommitted = false
    }

    func close() {
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
        descriptor = -1
    }

    private func openIfNeeded() throws {
        guard descriptor < 0 else { return }
        let (fd, created) = try NDJSONRegularFile.open(path, O_WRONLY | O_APPEND, creatingWith: 0o644)
        descriptor = fd
        // Still set when the file was closed and opened again before its directory was synced.
        if created { self.created = true }
    }

    /// Forgets that `open` created the file, once its directory was synced.
    func directoryEntrySynced() { created = false }
}

/// A failed system call on an NDJSON file.
struct NDJSONFileError: Error, CustomStringConvertible {
    var path: String
    var operation: String
    var code: Int32

    var description: String { "\(path): \(operation) failed: \(String(cString: strerror(code)))" + advice }

    /// What to do, where the failure says it (the sink retries meanwhile).
    private var advice: String {
        switch code {
        case ENOSPC, EDQUOT: " (the disk holding the folder is full, or its quota: free some space; the sink retries)"
        case EMFILE, ENFILE: " (no file descriptor left: raise the limit of open files, LimitNOFILE= in a systemd unit "
            + "or ulimit -n; the sink retries)"
        default: ""
        }
    }
}
