import Foundation
import HealthRouterCore

/// The `replay` source: reads NDJSON written by the ndjson sink, by Pulso's reference server
/// (`<type>.ndjson` with `receivedAt`, `_deleted.ndjson`) or by `healthrouter dump`, one file
/// or a folder of `*.ndjson`, and emits every line as a `HealthItem` (see README.md).
///
/// Contract (`FiniteSource`): `read(into:)` is called once; it emits batches of 5,000 items,
/// reports each line it cannot use to `skipped` with `file:line`, and the bytes consumed to
/// `progress`. A folder's files are read in name order, `_deleted.ndjson` last, so that its
/// tombstones apply to the samples before them.
public final class ReplaySource: FiniteSource {
    /// `path`: an `.ndjson` file or a folder of them; `user_id`, the user of lines that name none.
    public typealias Configuration = FileSourceConfiguration

    public let configuration: Configuration
    private let context: PluginContext
    static let batchSize = 5_000
    /// Refused lines before any sample that make a file another format, not a replay file with bad lines.
    static let refusedLinesThatMakeAnotherFormat = 5
    /// The longest line the format check parses (a workout with a long route is a few MiB).
    static let maxLineBytesToLookAt = 64 << 20

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.context = context
    }

    /// The configured path with a leading `~` expanded from the context's home directory.
    public var resolvedPath: String { context.expandingTilde(configuration.path) }

    /// A dump lists every version of a changed sample in the journal's order; an ndjson folder and a
    /// Pulso server's append an id's later version after the earlier one.
    public var listsVersionsInOrder: Bool { true }

    /// Whether `path` is replay input: a file whose first non-space character is `{` (in UTF-8, or
    /// UTF-16, which `formatProblem` refuses saying so), after at most `LeadingWhiteSpace.limit`
    /// (64 MiB) of white space, or a folder holding at least one `*.ndjson` file.
    public static func recognizes(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        if isDirectory.boolValue { return !((try? files(in: path)) ?? []).isEmpty }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        // Saved as UTF-16 (refused by `formatProblem`, saying so).
        if UTF16Text.firstASCIICharacter(head) == UInt8(ascii: "{") { return true }
        // The first byte that is not white space (after a UTF-8 byte-order mark at the start).
        var passed = 0
        func firstOtherByte(_ data: Data) -> UInt8? {
            data.withUnsafeBytes { bytes in
                let start = passed == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
                let leading = LeadingWhiteSpace.measure(UnsafeRawBufferPointer(rebasing: bytes[start...])).count
                passed += leading
                return start + leading < bytes.count ? bytes[start + leading] : nil
            }
        }
        var first = firstOtherByte(head)
        // Blank lines are ignored (a bound of 1 MiB took a file of more of them, named `.ndjson`, for
        // an export that is neither zip nor XML), up to `LeadingWhiteSpace.limit` (64 MiB) of them: a
        // file of 512 MiB of spaces was read to its end. Past it, the file is not taken for NDJSON,
        // and the export source refuses it, saying so.
        while first == nil, passed <= LeadingWhiteSpace.limit,
              let more = try? handle.read(upToCount: min(1 << 20, LeadingWhiteSpace.limit + 1 - passed)), !more.isEmpty {
            first = firstOtherByte(more)
        }
        if passed > LeadingWhiteSpace.limit { return false }
        // Named as NDJSON, with something in it: its lines are read as such, a bad first one counted
        // like any other (a file of blank lines goes on to be refused as nothing but white space).
        let name = path.lowercased()
        if first != nil, name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") { return true }
        return first == UInt8(ascii: "{")
    }

    /// The `*.ndjson` files of a folder: by name, `_deleted.ndjson` last. Regular files only (a
    /// symbolic link to one too): a folder or a pipe under such a name is not a file to read.
    public static func files(in directory: String) throws -> [String] {
        func isRegularFile(_ name: String) -> Bool {
            var status = stat()
            return stat((directory as NSString).appendingPathComponent(name), &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") && isRegularFile($0) }
            .sorted { a, b in
                let aDeleted = a == "_deleted.ndjson", bDeleted = b == "_deleted.ndjson"
                return aDeleted != bDeleted ? bDeleted : a < b
            }
        return names.map { (directory as NSString).appendingPathComponent($0) }
    }

    /// The files to read: the file itself, or the folder's.
    public func inputFiles() throws -> [String] {
        let path = resolvedPath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SourceError(input: path, problem: "does not exist", hint: "give an .ndjson file or a folder of them",
                              cannotRead: true)
        }
        guard isDirectory.boolValue else { return [path] }
        let files: [String]
        do {
            files = try Self.files(in: path)
        } catch {
            throw SourceError(input: path, problem: "cannot list the folder: \((error as NSError).localizedDescription)",
                              hint: "check the folder's permissions", cannotRead: true)
        }
        guard !files.isEmpty else {
            let data = (path as NSString).appendingPathComponent("data")
            if !((try? Self.files(in: data)) ?? []).isEmpty {
                throw SourceError(input: path, problem: "holds no .ndjson files; its data/ folder has them",
                                  hint: "set `path` to the data folder inside it (Pulso's reference server keeps its files there): \(data)")
            }
            throw SourceError(input: path, problem: "holds no .ndjson files",
                              hint: "give the folder an ndjson sink or Pulso's server wrote (<type>.ndjson files)")
        }
        return files
    }

    /// The `*.ndjson` entries of a folder other than `read` (`files(in:)`): no regular file (a folder,
    /// a pipe, a broken link), passed over, and said so.
    static func entriesPassedOver(in directory: String, reading read: [String]) -> [String] {
        let readNames = Set(read.map { ($0 as NSString).lastPathComponent })
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") && !readNames.contains($0) }.sorted()
    }

    public func read(into output: SourceOutput) throws {
        let files = try inputFiles()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: resolvedPath, isDirectory: &isDirectory), isDirectory.boolValue {
            for name in Self.entriesPassedOver(in: resolvedPath, reading: files) {
                output.skipped("not a regular file (a folder, a pipe, a broken link): not read", location: name)
            }
            // `dump | gzip` saved beside them (`dump.ndjson.gz`): not read, and said so with the
            // command that decompresses it.
            let compressed = ((try? FileManager.default.contentsOfDirectory(atPath: resolvedPath)) ?? [])
                .filter { name in [".ndjson.gz", ".ndjson.bz2", ".ndjson.xz", ".ndjson.zst"].contains { name.hasSuffix($0) } }
            for name in compressed.sorted() {
                let path = (resolvedPath as NSString).appendingPathComponent(name)
                let head = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 6) } ?? Data()
                guard let refusal = CompressedFile.refusal(path, head: head) else { continue }
                output.skipped("compressed NDJSON (file not read): " + refusal.hint, location: name)
            }
        }
        let sizes = files.map { Int64((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) }
        let total = sizes.reduce(0, +)
        var done: Int64 = 0
        var batch: [HealthItem] = []
        batch.reserveCapacity(Self.batchSize)
        for (file, size) in zip(files, sizes) {
            let name = (file as NSString).lastPathComponent
            // A file that is another format (see `formatProblem`): a lone file is refused, rather
            // than every line skipped; in a folder, it is skipped and the other files are read.
            if let problem = try Self.formatProblem(file) {
                guard files.count > 1 else { throw problem }
                // A compressed or UTF-16 file's hint says how to convert it.
                let convert = problem.problem.contains("compressed") || problem.problem.contains("UTF-")
                output.skipped("not NDJSON of health samples (file not read): " + problem.problem
                                   + (convert ? " — " + (problem.hint ?? "") : ""), location: name)
                done += size
                continue
            }
            // A line that cannot be read is reported once the next one shows it was not the last:
            // a last line that is not even JSON, without its newline, is a file cut short, not a bad line.
            var unreadable: (number: Int, problem: String, isJSON: Bool)?
            try NDJSONLineReader.forEachLine(path: file) { line, number, consumed in
                if let previous = unreadable {
                    output.skipped(previous.problem, location: "\(name):\(previous.number)")
                    unreadable = nil
                }
                switch Self.item(line) {
                case .success(var item):
                    if case .sample(var sample) = item, sample.userId == nil, let user = configuration.userId {
                        sample.userId = user
                        item = .sample(sample)
                    }
                    batch.append(item)
                    if batch.count >= Self.batchSize {
                        try output.emit(batch)
                        batch.removeAll(keepingCapacity: true)
                        output.progress(bytes: done + consumed, total: total)
                    }
                case .failure(let failure):
                    unreadable = (number, failure.problem, (try? JSONParser.parse(line)) != nil)
                }
            }
            if let last = unreadable {
                guard last.isJSON || Self.endsWithNewline(file) else {
                    // What came before the cut is kept; the file was read to its end (where it was cut).
                    if !batch.isEmpty { try output.emit(batch) }
                    output.progress(bytes: done + size, total: total)
                    throw SourceError(input: file, location: "line \(last.number)",
                                      problem: "the file ends in the middle of a line (\(last.problem)): it was cut short; "
                                        + "the lines before it were kept",
                                      hint: "copy the file again (the copy stopped before its end) and import it again: "
                                        + "what was kept is not written twice")
                }
                output.skipped(last.problem, location: "\(name):\(last.number)")
            }
            done += size
            output.progress(bytes: done, total: total)
        }
        if !batch.isEmpty { try output.emit(batch) }
    }

    /// Whether the last byte of `path` is a newline.
    static func endsWithNewline(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd(), end > 0 else { return true }
        try? handle.seek(toOffset: end - 1)
        return (try? handle.read(upToCount: 1))?.first == 0x0A
    }

    /// A file, or a folder whose every file, is another format (see `formatProblem`): refused
    /// before anything is read (`read(into:)` would refuse it too).
    public func checkInput() throws {
        let files = try inputFiles()
        var problems: [SourceError] = []
        for file in files {
            guard let problem = try Self.formatProblem(file) else { return }
            problems.append(problem)
        }
        if let first = problems.first { throw first }
    }

    /// Whether the line after the first `skippingLines` of `file` starts as a sample line does: an
    /// object whose first 64 KiB give it, at its top level, a `uuid`, a `type` and a `start` (not
    /// a document that wraps samples in a list).
    static func startsLikeASample(_ file: String, skippingLines: Int) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        var skipped = 0
        var line: [UInt8] = []
        while line.count < 65_536, let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
            for byte in chunk {
                if skipped < skippingLines {
                    if byte == 0x0A { skipped += 1 }
                    continue
                }
                line.append(byte)
            }
        }
        // The keys at depth 1: strings followed by a colon, outside nested objects and lists.
        var keys = Set<String>()
        var depth = 0, inString = false, escaped = false
        var current: [UInt8] = []
        var lastString: String?
        for byte in line.prefix(65_536) {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    lastString = String(decoding: current, as: UTF8.self)
                    continue
                }
                current.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; current.removeAll(keepingCapacity: true)
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; lastString = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; lastString = nil
            case UInt8(ascii: ":"):
                if depth == 1, let key = lastString { keys.insert(key) }
                lastString = nil
            case 0x20, 0x09, 0x0D, 0x0A: break
            default: lastString = nil
            }
        }
        let first = line.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        return first == UInt8(ascii: "{") && ["uuid", "type", "start"].allSatisfy { keys.contains($0) }
    }

    /// Why `file` is not a replay file, when it is another format: none of its lines up to the
    /// first that is shaped like a sample (or tombstone) is one, and there are
    /// `refusedLinesThatMakeAnotherFormat` of them or the file ends (a JSON document, pretty-printed
    /// JSON, CSV). A sample with a bad value (`end before start`, an unknown kind) is the right
    /// format: its line is skipped when read. Reads only up to that first line.
    static func formatProblem(_ file: String) throws -> SourceError? {
        struct Enough: Error {}
        if let handle = FileHandle(forReadingAtPath: file) {
            let head = (try? handle.read(upToCount: 6)) ?? Data()
            try? handle.close()
            // Compressed (`dump | gzip` saved as .ndjson, a folder's file too): says so.
            if let refusal = CompressedFile.refusal(file, head: head) {
                return SourceError(input: file, problem: refusal.problem, hint: refusal.hint)
            }
            let utf32 = UTF16Text.isUTF32(head)
            if utf32 || UTF16Text.isUTF16(head) {
                let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
                return SourceError(input: file, problem: "this NDJSON is UTF-\(utf32 ? 32 : 16); healthrouter reads NDJSON in UTF-8 "
                                    + "(as `healthrouter dump`, the ndjson sink and Pulso's server write it)",
                                   hint: "convert it: " + UTF16Text.conversionCommand(file, head: head, output: stem + "-utf8.ndjson"))
            }
        }
        var leading: [(problem: String, line: Int)] = []
        var sawSample = false
        do {
            try NDJSONLineReader.forEachLine(path: file, maxLineBytes: maxLineBytesToLookAt) { line, number, _ in
                if case .failure(let failure) = item(line), failure.notASample {
                    leading.append((failure.problem, number))
                    if leading.count >= refusedLinesThatMakeAnotherFormat { throw Enough() }
                    return
                }
                sawSample = true
                throw Enough()
            }
        } catch is Enough {
        } catch let long as NDJSONLineReader.LineTooLong {
            // A document on one line (minified JSON), not a line of NDJSON: not parsed whole. Unless
            // it starts as a sample does (a workout with a million route points, as the ndjson sink
            // writes it): the read takes lines of any length.
            if leading.isEmpty, Self.startsLikeASample(file, skippingLines: long.lineNumber - 1) { return nil }
            leading.append(("a line longer than \(maxLineBytesToLookAt >> 20) MiB", long.lineNumber))
        }
        guard !sawSample, let first = leading.first else { return nil }
        return SourceError(input: file, location: "line \(first.line)",
                    problem: "this is not NDJSON of health samples: "
                        + (leading.count == 1 ? "its line is not one (" : "none of its first \(leading.count) lines is one (")
                        + first.problem + ")",
                    hint: "import an export.zip or export.xml, a file `healthrouter dump` wrote, or a folder an ndjson "
                        + "sink or Pulso's server wrote, or a JSON file of Health Auto Export's ({\"data\": {\"metrics\": […]}}, "
                        + "as its Export → JSON writes it); other apps that post JSON post it to `healthrouter run`'s "
                        + "http_push source")
    }

    /// One line as a canonical item: Pulso's own lines (without healthrouter's `kind`) are
    /// normalised as `.canonical`; healthrouter's lines are canonical already. A sample that
    /// ends before it starts is refused, as the export and push sources refuse it, and so is a
    /// line that is not UTF-8 (a damaged byte, which every writer of the format writes as UTF-8)
    /// or that escapes half a UTF-16 surrogate pair (`"\ud800"`, which no writer of the format
    /// writes and the push source refuses): read, its text would hold U+FFFD in place of what was
    /// there, and a damaged id would stand for the sample's right one in the journal.
    public static func item(_ line: ArraySlice<UInt8>) -> Result<HealthItem, PulsoJSONDecoder.Failure> {
        func notUTF8(at offset: Int) -> Result<HealthItem, PulsoJSONDecoder.Failure> {
            .failure(PulsoJSONDecoder.Failure("byte \(offset + 1) is not UTF-8 (a damaged file?)"))
        }
        do {
            let (item, isPulso): (HealthItem, Bool)
            do {
                (item, isPulso) = try PulsoJSONDecoder.decode(line, rejectingLoneSurrogates: true)
            } catch let failure as PulsoJSONDecoder.Failure where failure.notASample && failure.problem.contains(JSONParser.loneSurrogate)
                        && (try? PulsoJSONDecoder.decode(line)) != nil {
                // A sample but for the escape (a line of another format stays one): a bad line.
                return .failure(PulsoJSONDecoder.Failure(Self.loneSurrogateProblem))
            } catch let failure as PulsoJSONDecoder.Failure where !failure.notASample {
                // Shaped as a sample: the damaged byte is the reason (a line of another format stays one).
                if let offset = firstByteNotUTF8(line) { return notUTF8(at: offset) }
                throw failure
            }
            if let offset = firstByteNotUTF8(line) { return notUTF8(at: offset) }
            if case .sample(let sample) = item, sample.end < sample.start {
                return .failure(PulsoJSONDecoder.Failure("end before start"))
            }
            guard case .sample(var sample) = item else { return .success(item) }
            // Out of a double's range as written (`1e400`), or once converted (`1e308 mi` in metres):
            // stored, it would be no value.
            if let field = sample.fieldOutOfRange { return .failure(PulsoJSONDecoder.Failure("\(field) out of a double's range")) }
            guard isPulso else { return .success(item) }
            SampleNormalizer.normalize(&sample, convention: .canonical)
            if let field = sample.fieldOutOfRange {
                return .failure(PulsoJSONDecoder.Failure("\(field) out of range once converted to its canonical unit"))
            }
            return .success(.sample(sample))
        } catch let failure as PulsoJSONDecoder.Failure {
            return .failure(failure)
        } catch {
            return .failure(PulsoJSONDecoder.Failure("\(error)"))
        }
    }

    /// Why a line with a `\u` escape of half a surrogate pair is skipped.
    static let loneSurrogateProblem = "a \\u escape of half a UTF-16 surrogate pair (\"\\ud800\" alone), which the push source "
        + "refuses too: read, its text would hold U+FFFD in its place (a damaged file?)"

    /// The offset in `line` of the first byte that is not part of a UTF-8 character, nil when it is UTF-8.
    static func firstByteNotUTF8(_ line: ArraySlice<UInt8>) -> Int? {
        if String(validating: line, as: UTF8.self) != nil { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = line.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }
}
