import Foundation
import HealthRouterCore

/// Brings the index level with the files when the sink is prepared.
///
/// - Bytes beyond what the index covers, left by a batch of this sink that was being
///   appended when the process died (`in_flight`), are cut off: that batch was never
///   acknowledged, so its entries come again and are written once.
/// - Bytes beyond what the index covers that no batch of this sink explains (lines another
///   program appended, files dropped into the directory, a deleted index) are indexed: their
///   ids count as written (sequence 0), so an identical re-delivery writes nothing.
/// - A file shorter than the index says (truncated or replaced by hand) makes the index
///   unreliable: it is rebuilt from all files and the cursor is forgotten.
///
/// Files are opened one at a time, never through a symbolic link, and only when regular files
/// the running user owns (`NDJSONRegularFile`: else a `misconfigured` error naming the file);
/// bytes are cut off through the opened descriptor, never by path.
enum NDJSONIndexRecovery {
    struct Summary: Equatable {
        var truncatedBytes: Int64 = 0
        var indexedLines = 0
        var unreadableLines = 0
        var rebuilt = false
    }

    static func reconcile(directory: String, index: NDJSONIndex) throws -> Summary {
        var summary = Summary()
        var covered = try index.coveredLengths()
        var sizes: [String: Int64] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        for name in names where name.hasSuffix(NDJSONFileStem.fileExtension) {
            let stem = String(name.dropLast(NDJSONFileStem.fileExtension.count))
            sizes[stem] = try NDJSONRegularFile.size(path(directory, stem))
        }
        let inFlight = try index.isInFlight()
        let shrunk = covered.contains { stem, length in (sizes[stem] ?? 0) < length }
        var cursor = try index.cursor()
        if shrunk {
            try index.removeAll()
            covered = [:]
            cursor = nil
            summary.rebuilt = true
        }

        // Sample files first, tombstones last: when a foreign file holds both a sample line and
        // a tombstone for one id, the deletion wins (HealthKit never re-adds a deleted id).
        let stems = sizes.keys.filter { $0 != NDJSONFileStem.deleted }.sorted()
            + (sizes[NDJSONFileStem.deleted] != nil ? [NDJSONFileStem.deleted] : [])
        try index.database.transaction {
            for stem in stems {
                let size = sizes[stem] ?? 0
                let start = covered[stem] ?? 0
                guard size > start else { continue }
                if inFlight && !shrunk {
                    try truncate(path(directory, stem), to: start)
                    summary.truncatedBytes += size - start
                } else {
                    // Built only when lines are to be indexed: one sort of every row, which a sink
                    // whose files are all covered (every start after a clean stop) does not need.
                    try index.buildKeyIndex()
                    let end = try indexTail(of: path(directory, stem), from: start, into: index, summary: &summary)
                    try index.store(stem: stem, covered: end)
                }
            }
            try index.store(cursor: cursor)
            if summary.indexedLines > 0 { try index.markForeignLines() }
        }
        return summary
    }

    static func path(_ directory: String, _ stem: String) -> String {
        directory + "/" + stem + NDJSONFileStem.fileExtension
    }

    /// Indexes the lines of `path` from byte `start`; returns the length now covered. A last
    /// line without its newline (cut off mid-write) is terminated, so appended lines stay whole.
    private static func indexTail(of path: String, from start: Int64, upTo limit: Int64? = nil, into index: NDJSONIndex,
                                  summary: inout Summary) throws -> Int64 {
        let fd = try NDJSONRegularFile.open(path, O_RDWR).descriptor
        defer { close(fd) }
        guard lseek(fd, off_t(start), SEEK_SET) >= 0 else {
            throw NDJSONFileError(path: path, operation: "seek", code: errno)
        }
        var end = start
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let wanted = limit.map { min(chunk.count, Int($0 - end)) } ?? chunk.count
            if wanted <= 0 { break }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw NDJSONFileError(path: path, operation: "read", code: errno)
            }
            if count == 0 { break }
            end += Int64(count)
            pending.append(contentsOf: chunk[0..<count])
            var lineStart = 0
            while let newline = pending[lineStart...].firstIndex(of: 0x0A) {
                try indexLine(pending[lineStart..<newline], into: index, summary: &summary)
                lineStart = newline + 1
            }
            pending.removeFirst(lineStart)
        }
        if !pending.isEmpty {
            try indexLine(pending[...], into: index, summary: &summary)
            // A covered range ends with its newline already: nothing to terminate.
            guard limit == nil else { return end }
            var newline: UInt8 = 0x0A
            guard write(fd, &newline, 1) == 1, fsync(fd) == 0 else {
                throw NDJSONFileError(path: path, operation: "write", code: errno)
            }
            end += 1
        }
        return end
    }

    private static func indexLine(_ line: ArraySlice<UInt8>, into index: NDJSONIndex, summary: inout Summary) throws {
        guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) else { return }
        switch NDJSONLineParser.parse(line) {
        case .sample(let id, let contentHash):
            try index.store(id, NDJSONIndex.Entry(contentHash: contentHash, sequence: 0, row: try index.lookup(id)?.row))
            summary.indexedLines += 1
        case .tombstone(let ids):
            for id in ids {
                try index.store(id, NDJSONIndex.Entry(contentHash: nil, sequence: 0, row: try index.lookup(id)?.row))
            }
            summary.indexedLines += 1
        case nil:
            summary.unreadableLines += 1
        }
    }

    private static func truncate(_ path: String, to length: Int64) throws {
        let fd = try NDJSONRegularFile.open(path, O_WRONLY).descriptor
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw NDJSONFileError(path: path, operation: "truncate", code: errno)
        }
    }
}
