import Foundation
import HealthRouterCore
import HTTPPushSource

/// The `health_auto_export` source: reads the JSON files Health Auto Export writes (Export → JSON,
/// or an automation writing JSON to iCloud Drive or Dropbox), one file or a folder of `*.json`,
/// each read whole as `/hae` reads one body (`HealthAutoExportDocument`), so that a file and a
/// push of the same data for the same user give the same sample ids (see README.md).
///
/// Contract (`FiniteSource`): `read(into:)` is called once; it emits batches of 5,000 items,
/// reports each data point, workout or entry it leaves out to `skipped` (`file: place`), and the
/// bytes of the files read to `progress`. A folder's files are read in name order; a file that
/// cannot be read (over 64 MiB, not JSON) does not stop the others: once they are read, the
/// source throws one `SourceError` naming each such file (what was read stays in the journal).
public final class HealthAutoExportFileSource: FiniteSource {
    /// `path`: a `.json` file or a folder of them; `user_id`, the user the samples belong to (a push's is its token's user).
    public typealias Configuration = FileSourceConfiguration

    public let configuration: Configuration
    private let context: PluginContext
    static let batchSize = 5_000

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.context = context
    }

    /// The configured path with a leading `~` expanded from the context's home directory.
    public var resolvedPath: String { context.expandingTilde(configuration.path) }

    /// Whether `path` is this source's input: a file that is one Health Auto Export JSON document
    /// by its start (`HealthAutoExportFileShape`), or a folder without `*.ndjson` files (a replay
    /// folder stays one) holding at least one such `*.json` file.
    public static func recognizes(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        guard isDirectory.boolValue else { return HealthAutoExportFileShape.recognizes(path) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        if names.contains(where: { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") }) { return false }
        return holdsDocuments(path)
    }

    /// Whether the folder `directory` holds at least one `*.json` file of Health Auto Export's
    /// (`files(in:)`, judged by its start), `.ndjson` files beside them or not.
    public static func holdsDocuments(_ directory: String) -> Bool {
        ((try? files(in: directory)) ?? []).contains(where: HealthAutoExportFileShape.recognizes)
    }

    /// The `*.json` files of a folder (any case of the extension), by name. Regular files only (a
    /// symbolic link to one too); hidden ones (`._export.json`, which macOS copies leave) are not read.
    public static func files(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { name in
                var status = stat()
                let path = (directory as NSString).appendingPathComponent(name)
                return name.lowercased().hasSuffix(".json") && !name.hasPrefix(".")
                    && stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            }
            .sorted()
            .map { (directory as NSString).appendingPathComponent($0) }
    }

    /// Whether the configured path is a folder.
    private var isFolder: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: resolvedPath, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The files to read: the file itself, or the folder's.
    public func inputFiles() throws -> [String] {
        let path = resolvedPath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SourceError(input: path, problem: "does not exist",
                              hint: "give a .json file Health Auto Export wrote or a folder of them", cannotRead: true)
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
            throw SourceError(input: path, problem: "holds no .json files",
                              hint: "give the folder Health Auto Export writes its JSON exports to (HealthAutoExport-….json)")
        }
        return files
    }

    /// A file of more than `HealthAutoExportDocument.maximumBytes`, or a folder all of whose files
    /// are: refused before anything is read (bounded: only the sizes are looked at).
    public func checkInput() throws {
        let files = try inputFiles()
        var refusals: [SourceError] = []
        for file in files {
            guard let refusal = Self.tooLarge(file, size: Self.size(of: file)) else { return }
            refusals.append(refusal)
        }
        if let first = refusals.first { throw first }
    }

    public func read(into output: SourceOutput) throws {
        let files = try inputFiles()
        let folder = isFolder
        let sizes = files.map(Self.size(of:))
        let total = sizes.reduce(0, +)
        var done: Int64 = 0
        var failures: [SourceError] = []
        for (file, size) in zip(files, sizes) {
            defer {
                done += size
                output.progress(bytes: done, total: total)
            }
            let name = (file as NSString).lastPathComponent
            if let refusal = Self.tooLarge(file, size: size) {
                failures.append(refusal)
                continue
            }
            // Read first: a file that cannot be read is a failure, not a file of another kind.
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            } catch {
                failures.append(SourceError(input: file, problem: "cannot be read: \((error as NSError).localizedDescription)",
                                            hint: "check the file's permissions", cannotRead: true))
                continue
            }
            // In a folder, a .json file of another kind (a settings file beside the exports) is
            // passed over, and said so, as a replay folder's file of another format is.
            if folder, !HealthAutoExportFileShape.recognizes(head: Array(bytes.prefix(HealthAutoExportFileShape.bytesLookedAt))) {
                output.skipped("not a Health Auto Export JSON file (no data.metrics or data.workouts at its start): file not read",
                               location: name)
                continue
            }
            let document: HealthAutoExportDocument
            do {
                document = try HealthAutoExportDocument.read(bytes, userId: configuration.userId)
            } catch .notJSON(let place, let problem) {
                failures.append(SourceError(input: file, location: place.isEmpty ? nil : place,
                                            problem: "not JSON (\(problem)): a file cut short, or not one Health Auto Export wrote",
                                            hint: "export it again from Health Auto Export as JSON (or copy it again), then import "
                                                + "it again: what was read is not written twice"))
                continue
            } catch .notHealthAutoExport(let problem) {
                failures.append(SourceError(input: file, problem: "not a Health Auto Export JSON file: \(problem)",
                                            hint: "give a file of Health Auto Export's JSON export ({\"data\": {\"metrics\": […]}})"))
                continue
            }
            var start = 0
            while start < document.items.count {
                var chunk = Array(document.items[start..<min(start + Self.batchSize, document.items.count)])
                try output.emit(taking: &chunk)
                start += Self.batchSize
            }
            for skip in document.skipped {
                output.skipped(skip.reason, location: skip.place.isEmpty ? name : "\(name): \(skip.place)")
            }
        }
        guard !failures.isEmpty else { return }
        if !folder, let only = failures.first { throw only }
        // Each file on a line of its own; the hints, each once, after them.
        let lines = failures.map { failure in
            "  " + (failure.input as NSString).lastPathComponent + (failure.location.map { ", \($0)" } ?? "") + ": " + failure.problem
        }
        var hints: [String] = []
        for hint in failures.compactMap(\.hint) where !hints.contains(hint) { hints.append(hint) }
        throw SourceError(input: resolvedPath,
                          problem: "\(failures.count) of its \(files.count) .json files \(failures.count == 1 ? "was" : "were") not read "
                              + "(the others were):\n"
                              + lines.joined(separator: "\n"),
                          hint: hints.joined(separator: "; "),
                          cannotRead: failures.allSatisfy(\.cannotRead) && failures.count == files.count)
    }

    /// The size of `file` in bytes, a symbolic link's target's (0 when it cannot be read: reading
    /// it says why).
    static func size(of file: String) -> Int64 {
        var status = stat()
        guard stat(file, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

    /// The refusal of a file over `HealthAutoExportDocument.maximumBytes`, which is read whole as a
    /// push's body is; nil when it is not over.
    static func tooLarge(_ file: String, size: Int64) -> SourceError? {
        let limit = Int64(HealthAutoExportDocument.maximumBytes)
        guard size > limit else { return nil }
        let mebibytes = String(format: "%.1f", Double(size) / Double(1 << 20))
        // Just over (64.0 MiB): the bytes, or the size would read as the limit.
        let shown = mebibytes == "\(limit >> 20).0" ? "\(size) bytes" : "\(mebibytes) MiB"
        return SourceError(input: file,
                           problem: "\(shown), over the \(limit >> 20) MiB a Health Auto Export file may have (it is read "
                               + "whole, as /hae reads a push's body): not read",
                           hint: "export a shorter date range, or split the export by metric (Health Auto Export's export screen "
                               + "does both), and import the smaller files")
    }
}
