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
    public struct Configuration: Decodable, Sendable {
        /// An `.ndjson` file or a folder of them (`~` is expanded).
        public var path: String
        /// The user the samples belong to, for lines that name none.
        public var userId: String?

        public init(path: String, userId: String? = nil) {
            self.path = path
            self.userId = userId
        }

        enum CodingKeys: String, CodingKey {
            case path
            case userId = "user_id"
        }
    }

    public let configuration: Configuration
    private let context: PluginContext
    static let batchSize = 5_000
    /// Refused lines before any sample that make a file another format, not a replay file with bad lines.
    static let refusedLinesThatMakeAnotherFormat = 5

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.context = context
    }

    /// The configured path with a leading `~` expanded from the context's home directory.
    public var resolvedPath: String { context.expandingTilde(configuration.path) }

    /// Whether `path` is replay input: a file whose first non-space byte is `{`, or a folder
    /// holding at least one `*.ndjson` file.
    public static func recognizes(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        if isDirectory.boolValue { return !((try? files(in: path)) ?? []).isEmpty }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        return head.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
    }

    /// The `*.ndjson` files of a folder: by name, `_deleted.ndjson` last.
    public static func files(in directory: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") }
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
            throw SourceError(input: path, problem: "does not exist", hint: "give an .ndjson file or a folder of them")
        }
        guard isDirectory.boolValue else { return [path] }
        let files = try Self.files(in: path)
        guard !files.isEmpty else {
            throw SourceError(input: path, problem: "holds no .ndjson files",
                              hint: "give the folder an ndjson sink or Pulso's server wrote (<type>.ndjson files)")
        }
        return files
    }

    public func read(into output: SourceOutput) throws {
        let files = try inputFiles()
        let sizes = files.map { Int64((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) }
        let total = sizes.reduce(0, +)
        var done: Int64 = 0
        var batch: [HealthItem] = []
        batch.reserveCapacity(Self.batchSize)
        for (file, size) in zip(files, sizes) {
            let name = (file as NSString).lastPathComponent
            // A file none of whose first lines is a sample is not a replay file at all (another
            // JSON document, pretty-printed JSON): refused, rather than every line skipped.
            var sawItem = false
            var leading: [(problem: String, line: Int)] = []
            func notReplay() -> SourceError { Self.notReplay(file, leading: leading) }
            try NDJSONLineReader.forEachLine(path: file) { line, number, consumed in
                let parsed = Self.item(line)
                if !sawItem {
                    if case .failure(let failure) = parsed {
                        leading.append((failure.problem, number))
                        if leading.count >= Self.refusedLinesThatMakeAnotherFormat { throw notReplay() }
                        return
                    }
                    sawItem = true
                    for failure in leading { output.skipped(failure.problem, location: "\(name):\(failure.line)") }
                }
                switch parsed {
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
                    output.skipped(failure.problem, location: "\(name):\(number)")
                }
            }
            if !sawItem && !leading.isEmpty { throw notReplay() }
            done += size
            output.progress(bytes: done, total: total)
        }
        if !batch.isEmpty { try output.emit(batch) }
    }

    /// Reads each file's first lines, up to its first item: a file that has none among them is not
    /// a replay file (see `read(into:)`).
    public func checkInput() throws {
        struct Enough: Error {}
        for file in try inputFiles() {
            var leading: [(problem: String, line: Int)] = []
            var sawItem = false
            do {
                try NDJSONLineReader.forEachLine(path: file) { line, number, _ in
                    guard case .failure(let failure) = Self.item(line) else {
                        sawItem = true
                        throw Enough()
                    }
                    leading.append((failure.problem, number))
                    if leading.count >= Self.refusedLinesThatMakeAnotherFormat { throw Enough() }
                }
            } catch is Enough {}
            // Bad lines and no item (the end came first, or enough of them): `read`'s verdict.
            if !sawItem && !leading.isEmpty { throw Self.notReplay(file, leading: leading) }
        }
    }

    /// A file none of whose first lines (`leading`: each one's problem and number) is an item.
    static func notReplay(_ file: String, leading: [(problem: String, line: Int)]) -> SourceError {
        SourceError(input: file, location: leading.first.map { "line \($0.line)" },
                    problem: "this is not NDJSON of health samples: "
                        + (leading.count == 1 ? "its line is not one (" : "none of its first \(leading.count) lines is one (")
                        + (leading.first?.problem ?? "?") + ")",
                    hint: "import an export.zip or export.xml, a file `healthrouter dump` wrote, or a folder an ndjson "
                        + "sink or Pulso's server wrote; apps that post JSON (Health Auto Export) post it to "
                        + "`healthrouter run`'s http_push source")
    }

    /// One line as a canonical item: Pulso's own lines (without healthrouter's `kind`) are
    /// normalised as `.canonical`; healthrouter's lines are canonical already. A sample that
    /// ends before it starts is refused, as the export and push sources refuse it.
    public static func item(_ line: ArraySlice<UInt8>) -> Result<HealthItem, PulsoJSONDecoder.Failure> {
        do {
            let (item, isPulso) = try PulsoJSONDecoder.decode(line)
            if case .sample(let sample) = item, sample.end < sample.start {
                return .failure(PulsoJSONDecoder.Failure("end before start"))
            }
            guard isPulso, case .sample(var sample) = item else { return .success(item) }
            SampleNormalizer.normalize(&sample, convention: .canonical)
            return .success(.sample(sample))
        } catch let failure as PulsoJSONDecoder.Failure {
            return .failure(failure)
        } catch {
            return .failure(PulsoJSONDecoder.Failure("\(error)"))
        }
    }
}
