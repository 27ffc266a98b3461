import Foundation
import HealthRouterCore

/// A file for a pass's scratch data that no other process sees and that disappears with its
/// descriptor: created in the state directory (else the system's temporary folder) and unlinked
/// at once.
enum UnlinkedTemporaryFile {
    /// The open descriptor (read and write) of a new file named `prefix`-XXXXXX; `purpose` names
    /// what it is for in the error.
    static func open(in directory: String, prefix: String, purpose: String) throws -> Int32 {
        var candidates = [directory, NSTemporaryDirectory(), "/tmp"].filter { !$0.isEmpty }
        while !candidates.isEmpty {
            let folder = candidates.removeFirst()
            var template = Array((folder.hasSuffix("/") ? folder : folder + "/").utf8CString.dropLast())
                + Array("\(prefix)-XXXXXX".utf8CString)
            let opened = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if opened >= 0 {
                template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
                return opened
            }
        }
        throw SourceError(input: directory, problem: "cannot create a temporary file for \(purpose): \(String(cString: strerror(errno)))",
                          hint: "make the state directory writable", stateNotWritable: true)
    }

    /// Writes all of `bytes` at `offset`; false when the file cannot take them (a full disk).
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        transfer(bytes.count) { done in pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
    }

    /// Fills `bytes` from `offset`; false when the file holds fewer.
    static func read(_ descriptor: Int32, into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        transfer(bytes.count) { done in pread(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
    }

    /// Calls `step` with the bytes done so far until `count` are done; false when a step moves none.
    private static func transfer(_ count: Int, _ step: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let moved = step(done)
            if moved <= 0 { return false }
            done += moved
        }
        return true
    }
}
