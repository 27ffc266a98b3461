/// Repairs the byte stream of an export.xml (and of a GPX route file, `GPXRouteReader`: it has
/// no DOCTYPE, its first element ends the prolog) before libxml2 sees it, without changing
/// its length (so line numbers and byte offsets stay those of the file; but for a CR LF that a
/// chunk cuts in two, whose LF is left out):
///
/// - Control characters XML 1.0 forbids (`\x0b` and friends; tab, LF and CR are fine)
///   become spaces: real exports contain them and libxml2 stops at the first one.
/// - A CR that no LF follows (an old Mac's line ends: a file edited there, or converted) becomes
///   an LF. XML reads it as one (end-of-line handling, XML 1.0 §2.11), but libxml2 counts lines
///   by LFs alone: every problem of such a file was said to be on line 1. A CR LF stays as it is.
/// - The `<!DOCTYPE … [ … ]>` declaration, internal subset included, becomes spaces
///   (newlines kept). iOS 16's export version 12 ships an internal subset that is not
///   well-formed (an unclosed `<!ATTLIST VisionPrescription`), and healthrouter never
///   validates, so the DTD is dropped rather than parsed.
/// - Character references to forbidden characters (`&#11;`) become references to a space
///   (`ForbiddenCharacterReference`); one the chunk cuts off is held back for the next chunk.
///
/// - White space before the prolog (a file led by blank lines) goes after its XML declaration:
///   libxml2 refuses a declaration anywhere but at the document's start ("XML declaration
///   allowed only at the start of the document"). The bytes are only moved (a UTF-8 byte-order
///   mark stays first), so every line after the declaration keeps its number; the declaration's
///   own lines are said at theirs by `fileLine(_:)` (libxml2 names them from line 1).
///
/// The prolog is held back until the DOCTYPE (or the first element) is complete, at
/// most `prologLimit` bytes (white space leading it is counted, not held); after that bytes pass
/// straight through.
struct ExportByteFilter {
    /// Bytes of prolog held back at most before giving up on finding the DOCTYPE's end.
    static let prologLimit = 8 << 20

    private var prolog: [UInt8]? = []

    /// Whether the DOCTYPE was found and blanked (for the log).
    private(set) var removedDoctype = false

    /// Whether the last chunk ended with a CR (made an LF): an LF that starts this one is its
    /// CR LF's, and left out.
    private var endedWithCarriageReturn = false

    /// The start of a character reference the last chunk cut off (at most
    /// `ForbiddenCharacterReference.longest` bytes), not delivered yet.
    private var carried: [UInt8] = []

    /// The white space (after `replaceControlCharacters`) the stream starts with, passed over
    /// while the prolog is held: how many bytes, and how many of them are line feeds.
    private var leadingWhiteSpace = (bytes: 0, lineFeeds: 0)

    /// Whether the stream starts with a UTF-8 byte-order mark (left out of the held prolog).
    private var startsWithByteOrderMark = false

    /// The XML declaration moved before the white space that led it: how many lines it spans
    /// (the first ones delivered), and how many line feeds it was moved over (zero: not moved).
    private var movedDeclaration = (lines: 0, lineFeeds: 0)

    /// The line of the file that `line` of the bytes delivered is (libxml2's line numbers): a line
    /// of an XML declaration moved before the blank lines that led it (`<?xml … encoding="bogus"?>`
    /// after five of them, which libxml2 says is on line 1) is said at its own line (6); every
    /// other line is the file's already.
    func fileLine(_ line: Int) -> Int {
        line >= 1 && line <= movedDeclaration.lines ? line + movedDeclaration.lineFeeds : line
    }

    /// Filters `chunk` in place and hands the bytes that are ready to `deliver`
    /// (possibly nothing, while the prolog is incomplete; everything when `isLast`).
    mutating func filter(_ whole: UnsafeMutableRawBufferPointer, isLast: Bool,
                         deliver: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var chunk = whole
        if endedWithCarriageReturn, !chunk.isEmpty {
            endedWithCarriageReturn = false
            if chunk.first == 0x0A { chunk = UnsafeMutableRawBufferPointer(rebasing: chunk[1...]) }
        }
        if !chunk.isEmpty { endedWithCarriageReturn = Self.replaceControlCharacters(chunk) }
        guard var held = prolog else {
            try deliverRepaired(chunk, isLast: isLast, deliver: deliver)
            return
        }
        if held.isEmpty { chunk = passLeadingWhiteSpace(chunk) }
        held.append(contentsOf: chunk)
        let state = Self.blankDoctype(&held)
        if state == .incomplete && !isLast && held.count < Self.prologLimit {
            prolog = held
            return
        }
        removedDoctype = state == .removed
        prolog = nil
        // The byte-order mark, the XML declaration, the white space that led it, the rest.
        let declarationEnd = Self.declarationEnd(held)
        if declarationEnd > 0 {
            movedDeclaration = (1 + held[..<declarationEnd].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, leadingWhiteSpace.lineFeeds)
        }
        var head: [UInt8] = startsWithByteOrderMark ? [0xEF, 0xBB, 0xBF] : []
        head.append(contentsOf: held[..<declarationEnd])
        if !head.isEmpty { try head.withUnsafeBytes { try deliver($0) } }
        try deliverWhiteSpace(deliver)
        try held.withUnsafeMutableBytes {
            try deliverRepaired(UnsafeMutableRawBufferPointer(rebasing: $0[declarationEnd...]), isLast: isLast, deliver: deliver)
        }
    }

    /// The part of `chunk` after the byte-order mark and white space the stream starts with,
    /// counted in `leadingWhiteSpace` (called while nothing of the prolog is held).
    private mutating func passLeadingWhiteSpace(_ chunk: UnsafeMutableRawBufferPointer) -> UnsafeMutableRawBufferPointer {
        var start = 0
        if leadingWhiteSpace.bytes == 0, !startsWithByteOrderMark, chunk.count >= 3,
           chunk[0] == 0xEF, chunk[1] == 0xBB, chunk[2] == 0xBF {
            startsWithByteOrderMark = true
            start = 3
        }
        // After `replaceControlCharacters`: space, tab, LF, and a CR of a CR LF.
        while start < chunk.count, chunk[start] == 0x20 || chunk[start] == 0x0A || chunk[start] == 0x09 || chunk[start] == 0x0D {
            if chunk[start] == 0x0A { leadingWhiteSpace.lineFeeds += 1 }
            leadingWhiteSpace.bytes += 1
            start += 1
        }
        return UnsafeMutableRawBufferPointer(rebasing: chunk[start...])
    }

    /// Delivers the white space `passLeadingWhiteSpace` passed over, as many bytes with as many
    /// line feeds (the others spaces), 64 KiB at a time.
    private mutating func deliverWhiteSpace(_ deliver: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var (bytes, lineFeeds) = leadingWhiteSpace
        leadingWhiteSpace = (0, 0)
        while bytes > 0 {
            let count = min(bytes, 64 << 10), feeds = min(lineFeeds, count)
            let piece = [UInt8](repeating: 0x0A, count: feeds) + [UInt8](repeating: 0x20, count: count - feeds)
            try piece.withUnsafeBytes { try deliver($0) }
            bytes -= count
            lineFeeds -= feeds
        }
    }

    /// The index just past the XML declaration (`<?xml version="1.0" …?>`) `prolog` starts with,
    /// 0 when it starts with none (or the declaration's end is not in it).
    static func declarationEnd(_ prolog: [UInt8]) -> Int {
        let opening = Array("<?xml".utf8)
        guard prolog.count > opening.count + 1, prolog.starts(with: opening),
              [0x20, 0x09, 0x0A, 0x0D].contains(prolog[opening.count]) else { return 0 }
        var index = opening.count
        while index + 1 < prolog.count {
            if prolog[index] == UInt8(ascii: "?"), prolog[index + 1] == UInt8(ascii: ">") { return index + 2 }
            index += 1
        }
        return 0
    }

    /// Rewrites forbidden character references in `bytes` and delivers them, holding back a
    /// reference cut off at the end. A reference carried from the last chunk is completed
    /// from the start of this one: its bytes are delivered first, the ones it took from this
    /// chunk rewritten in place.
    private mutating func deliverRepaired(_ bytes: UnsafeMutableRawBufferPointer, isLast: Bool,
                                          deliver: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if isLast && !carried.isEmpty {
                try carried.withUnsafeBytes { try deliver($0) }
                carried = []
            }
            return
        }
        let count = bytes.count
        if !carried.isEmpty {
            let borrowed = min(count, ForbiddenCharacterReference.longest)
            var joined = carried
            joined.append(contentsOf: UnsafeBufferPointer(start: base, count: borrowed))
            let scan = joined.withUnsafeBufferPointer { ForbiddenCharacterReference.scan($0.baseAddress!, count: $0.count, at: 0) }
            if scan == .incomplete && !isLast {
                carried = joined   // this chunk was shorter than the rest of the reference
                return
            }
            if case .forbidden(let end) = scan {
                joined.withUnsafeMutableBufferPointer { ForbiddenCharacterReference.rewrite($0.baseAddress!, length: end) }
                for index in 0..<borrowed { base[index] = joined[carried.count + index] }
            }
            try joined[..<carried.count].withUnsafeBytes { try deliver($0) }
            carried = []
        }
        let ready = ForbiddenCharacterReference.rewriteAll(base, count: count, atEnd: isLast)
        if ready < count { carried = Array(UnsafeBufferPointer(start: base + ready, count: count - ready)) }
        try deliver(UnsafeRawBufferPointer(start: base, count: ready))
    }

    /// Replaces the C0 control characters XML forbids with spaces, and a CR that no LF follows
    /// with an LF (a CR at the end too). Returns whether the last byte was a CR: an LF that starts
    /// the next bytes is then its CR LF's.
    @discardableResult
    static func replaceControlCharacters(_ bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return false }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        let endsWithCarriageReturn = base[count - 1] == 0x0D
        var index = 0
        // Eight bytes at a time: only words holding a byte below 0x20 (mostly line breaks
        // and indentation tabs) are looked at byte by byte.
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 != 0 {
                for offset in index..<(index + 8) { replaceIfForbidden(base + offset, isLast: offset == count - 1) }
            }
            index += 8
        }
        while index < count {
            replaceIfForbidden(base + index, isLast: index == count - 1)
            index += 1
        }
        return endsWithCarriageReturn
    }

    @inline(__always)
    private static func replaceIfForbidden(_ pointer: UnsafeMutablePointer<UInt8>, isLast: Bool) {
        let byte = pointer.pointee
        guard byte < 0x20 else { return }
        if byte == 0x0D {
            if isLast || pointer[1] != 0x0A { pointer.pointee = 0x0A }
        } else if byte != 0x09 && byte != 0x0A {
            pointer.pointee = 0x20
        }
    }

    enum PrologState { case incomplete, removed, noDoctype }

    /// Finds the DOCTYPE declaration in the prolog `bytes` and blanks it.
    static func blankDoctype(_ bytes: inout [UInt8]) -> PrologState {
        let count = bytes.count
        var index = 0
        func starts(with text: StaticString, at position: Int) -> Bool? {
            let length = text.utf8CodeUnitCount
            let pointer = text.utf8Start
            for offset in 0..<length {
                if position + offset >= count { return nil }
                if bytes[position + offset] != pointer[offset] { return false }
            }
            return true
        }
        func find(_ text: StaticString, from position: Int) -> Int? {
            var cursor = position
            while cursor < count {
                guard let match = starts(with: text, at: cursor) else { return nil }
                if match { return cursor }
                cursor += 1
            }
            return nil
        }
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if let declaration = starts(with: "<?", at: index) {
                if declaration {
                    guard let end = find("?>", from: index + 2) else { return .incomplete }
                    index = end + 2
                    continue
                }
            } else { return .incomplete }
            if let comment = starts(with: "<!--", at: index) {
                if comment {
                    guard let end = find("-->", from: index + 4) else { return .incomplete }
                    index = end + 3
                    continue
                }
            } else { return .incomplete }
            guard let doctype = starts(with: "<!DOCTYPE", at: index) else { return .incomplete }
            guard doctype else { return .noDoctype }   // the first element: no DOCTYPE
            guard let end = doctypeEnd(bytes, from: index + 9) else { return .incomplete }
            for position in index..<end where bytes[position] != 0x0A && bytes[position] != 0x0D {
                bytes[position] = 0x20
            }
            return .removed
        }
        return .incomplete
    }

    /// The index just past the `>` that closes a DOCTYPE whose name starts at `start`:
    /// the first `>` when there is no internal subset, else the `>` after the subset's `]`.
    /// Comments inside the subset are skipped; nothing else is trusted to be well-formed.
    private static func doctypeEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        var inSubset = false
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if !inSubset {
                if byte == UInt8(ascii: ">") { return index + 1 }
                if byte == UInt8(ascii: "[") { inSubset = true }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "<"), index + 3 < count, bytes[index + 1] == UInt8(ascii: "!"),
               bytes[index + 2] == UInt8(ascii: "-"), bytes[index + 3] == UInt8(ascii: "-") {
                var cursor = index + 4
                while cursor + 2 < count, !(bytes[cursor] == UInt8(ascii: "-") && bytes[cursor + 1] == UInt8(ascii: "-")
                                            && bytes[cursor + 2] == UInt8(ascii: ">")) {
                    cursor += 1
                }
                guard cursor + 2 < count else { return nil }
                index = cursor + 3
                continue
            }
            if byte == UInt8(ascii: "]") {
                var cursor = index + 1
                while cursor < count, bytes[cursor] == 0x20 || bytes[cursor] == 0x0A || bytes[cursor] == 0x0D
                    || bytes[cursor] == 0x09 {
                    cursor += 1
                }
                guard cursor < count else { return nil }
                if bytes[cursor] == UInt8(ascii: ">") { return cursor + 1 }
            }
            index += 1
        }
        return nil
    }
}
