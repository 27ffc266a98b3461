import Foundation

/// One append-only `.ndjson` file: kept open between writes, lines buffered until `flush`.
///
/// `committedLength` is what the index covers; bytes beyond it belong to a batch not yet
/// committed and are cut off again by `discardUncommitted` when the batch fails.
final class NDJSONFile {
    let path: String
    private(set) var committedLength: Int64
    /// Lines waiting for `flush`.
    var buffer: [UInt8] = []
    /// True when `open` created the file (its directory entry needs an fsync).
    private(set) var created = false
    private var descriptor: Int32 = -1

    init(path: String, committedLength: Int64) {
        self.path = path
        self.committedLength = committedLength
    }

    deinit { close() }

    /// The length once the buffer is written.
    var pendingLength: Int64 { committedLength + Int64(buffer.count) }

    /// Writes the buffer at the end of the file and fsyncs it.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try openIfNeeded()
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

    /// Marks the flushed buffer as covered by the index and empties it.
    func commit() {
        committedLength += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Empties the buffer and cuts the file back to `committedLength`.
    func discardUncommitted() throws {
        buffer.removeAll(keepingCapacity: true)
        guard descriptor >= 0 else { return }
        guard ftruncate(descriptor, off_t(committedLength)) == 0 else {
            throw NDJSONFileError(path: path, operation: "truncate", code: errno)
        }
        _ = fsync(descriptor)
    }

    func close() {
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
        descriptor = -1
    }

    private func openIfNeeded() throws {
        guard descriptor < 0 else { return }
        let existed = access(path, F_OK) == 0
        let fd = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw NDJSONFileError(path: path, operation: "open", code: errno) }
        descriptor = fd
        created = !existed
    }

    /// Forgets that `open` created the file, once its directory was synced.
    func directoryEntrySynced() { created = false }
}

/// A failed system call on an NDJSON file.
struct NDJSONFileError: Error, CustomStringConvertible {
    var path: String
    var operation: String
    var code: Int32

    var description: String { "\(path): \(operation) failed: \(String(cString: strerror(code)))" }
}
