import Foundation
import HealthRouterCore

/// The clinical-record FHIR files of a zip (`clinical-records/*.json`), read in the first pass over
/// the archive and kept on disk until export.xml's `ClinicalRecord`s ask for them (the files may
/// come before or after export.xml). Memory: an index entry a file; the texts are in an unlinked
/// temporary file, read back one at a time.
final class ClinicalResourceStore: ClinicalResourceResolver {
    /// The largest file kept: a FHIR resource is a few KiB.
    static let largestFile = 16 << 20

    private let descriptor: Int32
    private var stored = 0
    private var files: [String: Range<Int>] = [:]
    private var referenced: Set<String> = []
    /// Files not kept (too large, damaged), which were reported when met.
    private var refused: Set<String> = []

    /// Where a `resourceFilePath` leads (its `dataFolder` is export.xml's).
    var paths = ZipReferencePaths()

    /// The most bytes the file takes (`ZipExportReader.temporaryByteLimit`).
    let byteLimit: Int

    init(directory: String, byteLimit: Int = .max) throws {
        descriptor = try UnlinkedTemporaryFile.open(in: directory, prefix: "healthrouter-clinical",
                                                    purpose: "the clinical records")
        self.byteLimit = byteLimit
    }

    /// Whether `count` more bytes fit under `byteLimit`.
    func hasRoom(for count: Int) -> Bool { count <= byteLimit - stored }

    deinit {
        close(descriptor)
    }

    /// Keeps `bytes` as the file at `path` in the archive.
    func add(path: String, bytes: [UInt8]) throws {
        guard bytes.withUnsafeBytes({ UnlinkedTemporaryFile.write(descriptor, $0, at: stored) }) else {
            throw SourceError(input: "temporary clinical-record file",
                              problem: "writing a clinical record failed: \(String(cString: strerror(errno)))",
                              hint: "free some disk space in the state directory", stateNotWritable: true)
        }
        files[path] = stored..<(stored + bytes.count)
        stored += bytes.count
        paths.add(path)
    }

    /// Notes that the file at `path` was not kept (the reason was reported): a record that names it
    /// is not reported again as lacking it.
    func refuse(path: String) {
        refused.insert(path)
        paths.add(path)
    }

    /// The files no `ClinicalRecord` asked for, by path.
    var unreferencedPaths: [String] { files.keys.filter { !referenced.contains($0) }.sorted() }

    func resource(forReference reference: String) -> ClinicalResourceLookup {
        let path = paths.path(of: reference) { files[$0] != nil || refused.contains($0) }
        if refused.contains(path) { return .refused }
        guard let range = files[path] else { return .missing }
        referenced.insert(path)
        var bytes = [UInt8](repeating: 0, count: range.count)
        guard bytes.withUnsafeMutableBytes({ UnlinkedTemporaryFile.read(descriptor, into: $0, at: range.lowerBound) }) else {
            return .missing
        }
        return .found(String(decoding: bytes, as: UTF8.self))
    }
}
