import Foundation

/// Reads a file of newline-delimited lines in 1 MiB chunks and hands each non-blank line
/// (without its `\n` or `\r\n`) to a closure with its 1-based line number. A last line
/// without a newline is handed over too. A UTF-8 byte-order mark at the start of the file
/// (editors on Windows write one) is not part of the first line. Each byte is searched for a
/// newline once, however long the line; a run of blank lines is passed over in one scan, counted.
/// A run of NUL bytes (what a power cut leaves) ends the line before it and is passed over, as no
/// line.
public enum NDJSONLineReader {
    /// A line longer than the reader was told to take (`maxLineBytes`).
    public struct LineTooLong: Error {
        public var lineNumber: Int
    }

    /// Calls `visit(line, lineNumber, end)` for each non-blank line of `path`, `end` the offset in
    /// the file just past the line (its newline included); throws `LineTooLong` at a line longer
    /// than `maxLineBytes`, when given.
    public static func forEachLine(path: String, maxLineBytes: Int? = nil,
                                   _ visit: (_ line: ArraySlice<UInt8>, _ number: Int, _ end: Int64) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SourceError(input: path, problem: "cannot be opened for reading",
                              hint: "check that the file exists and is readable", cannotRead: true)
        }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        // The bytes of `pending` already searched for a newline (none was there).
        var searched = 0
        var lineNumber = 0
        var consumed: Int64 = 0
        // Whether `pending` ended inside a run of NUL bytes.
        var skippingZeros = false
        // `endsLine`: false for the part of a line before a run of NUL bytes, which has the line's
        // number, as the part after the run does (the line counts once).
        func emit(_ line: ArraySlice<UInt8>, endingAt offset: Int64, endsLine: Bool = true) throws {
            let number = lineNumber + 1
            if endsLine { lineNumber += 1 }
            var end = line.endIndex
            if end > line.startIndex, line[end - 1] == 0x0D { end -= 1 }
            let trimmed = line[line.startIndex..<end]
            guard trimmed.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            try visit(trimmed, number, offset)
        }
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw SourceError(input: path, location: "line \(lineNumber + 1)", problem: "cannot be read: \(error)",
                                  cannotRead: true)
            }
            if chunk.isEmpty { break }
            let isFirstChunk = consumed == 0
            consumed += Int64(chunk.count)
            pending.append(contentsOf: chunk)
            var lineStart = 0
            if isFirstChunk, pending.starts(with: [0xEF, 0xBB, 0xBF]) { lineStart = 3 }
            var searchFrom = max(lineStart, searched)
            // The offset in the file of `pending`'s first byte.
            let base = consumed - Int64(pending.count)
            if skippingZeros {
                // Still in a run of NUL bytes that began in an earlier chunk.
                while lineStart < pending.count, pending[lineStart] == 0 { lineStart += 1 }
                searchFrom = lineStart
                skippingZeros = lineStart == pending.count
            }
            while true {
                if searchFrom == lineStart {
                    // At a line's start: a run of blank lines is passed over in one scan, counted, not
                    // handed out line by line (20 MB of them read at about 1 MB/s, each line a slice,
                    // a search and a check).
                    let run = pending.withUnsafeBufferPointer { Self.blankLines(in: $0, from: lineStart) }
                    lineNumber += run.count
                    lineStart = run.end
                    searchFrom = lineStart
                }
                guard let end = pending[searchFrom...].firstIndex(where: { $0 == 0x0A || $0 == 0 }) else { break }
                if pending[end] == 0x0A {
                    try emit(pending[lineStart..<end], endingAt: base + Int64(end + 1))
                    lineStart = end + 1
                } else {
                    // A NUL byte, which no JSON text holds: the zeros a power cut leaves at a file's end
                    // (or over a block of it). The run ends the line before it and is passed over
                    // whole, as no line, however long it is (a gigabyte of them took a gigabyte).
                    if end > lineStart { try emit(pending[lineStart..<end], endingAt: base + Int64(end), endsLine: false) }
                    lineStart = end
                    while lineStart < pending.count, pending[lineStart] == 0 { lineStart += 1 }
                    skippingZeros = lineStart == pending.count
                }
                searchFrom = lineStart
            }
            pending.removeFirst(lineStart)
            searched = pending.count
            if let maxLineBytes, pending.count > maxLineBytes { throw LineTooLong(lineNumber: lineNumber + 1) }
        }
        if !pending.isEmpty { try emit(pending[...], endingAt: consumed) }
    }

    /// The run of blank lines at `start` in `bytes`: the offset just past its last newline (`start`
    /// when the line there is not blank or has no newline in `bytes` yet) and how many lines it
    /// holds. A blank line is spaces and tabs, then `\n` or `\r\n`, the lines `forEachLine` does not
    /// hand out (a line holding any other byte, a lone `\r` or a NUL among them, ends the run).
    static func blankLines(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, count: Int) {
        var index = start, end = start, count = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09:
                index += 1
            case 0x0D where index + 1 < bytes.count && bytes[index + 1] == 0x0A:
                index += 1
            case 0x0A:
                index += 1
                count += 1
                end = index
            default:
                return (end, count)
            }
        }
        return (end, count)
    }
}
