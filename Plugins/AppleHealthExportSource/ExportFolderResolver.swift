import Foundation
import HealthRouterCore

/// The files of an unpacked export beside export.xml: its route files (`<folder>/workout-routes/route_….gpx`),
/// read when a `FileReference` asks for one (one route in memory at a time), and its
/// clinical-record files (`<folder>/clinical-records/….json`), when a `ClinicalRecord` asks.
final class ExportFolderResolver: RouteFileResolver, ClinicalResourceResolver {
    private let folder: String
    private let output: SourceOutput

    init(folder: String, output: SourceOutput) {
        self.folder = folder
        self.output = output
    }

    /// The export's folder with its symbolic links resolved: a route file must be inside it.
    private lazy var realFolder: String? = Self.realPath(folder)

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A file of the export `reference` names, opened (with its real path when it has one), or why not.
    private enum OpenedFile {
        case file(Int32, realPath: String?)
        case missing
        case refused
    }

    /// How many references each route file (by its real path) gave its points to.
    private var routeUses = RouteFileUses()

    /// Opens the file `reference` names (a path inside the export, `/workout-routes/…`): one that
    /// leads out of the export's folder (`/../../etc/passwd`, or through a symbolic link), or that is
    /// not a regular file (a FIFO would block the import forever), is reported as a `kind` not read.
    private func open(_ reference: String, kind: String) -> OpenedFile {
        let relative = reference.hasPrefix("/") ? String(reference.dropFirst()) : reference
        let path = folder + "/" + relative
        let real = Self.realPath(path)
        if let real, let realFolder, !real.hasPrefix(realFolder == "/" ? "/" : realFolder + "/") {
            output.skipped("\(kind) reference leads out of the export's folder: not read", location: reference)
            return .refused
        }
        let descriptor = Foundation.open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return .missing }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            output.skipped("\(kind) is not a regular file (a folder, a pipe, a device): not read", location: path)
            return .refused
        }
        return .file(descriptor, realPath: real)
    }

    func resource(forReference reference: String) -> ClinicalResourceLookup {
        let descriptor: Int32
        switch open(reference, kind: "clinical-record file") {
        case .file(let opened, _): descriptor = opened
        case .missing: return .missing
        case .refused: return .refused
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let data = try? handle.read(upToCount: ClinicalResourceStore.largestFile + 1) else { return .missing }
        guard data.count <= ClinicalResourceStore.largestFile else {
            output.skipped("clinical-record file larger than \(ClinicalResourceStore.largestFile >> 20) MiB: not read",
                           location: reference)
            return .refused
        }
        return .found(String(decoding: data, as: UTF8.self))
    }

    func points(forReference reference: String) -> RouteLookup {
        let descriptor: Int32
        let path = folder + "/" + (reference.hasPrefix("/") ? String(reference.dropFirst()) : reference)
        switch open(reference, kind: "route file") {
        case .file(let opened, let realPath):
            descriptor = opened
            guard routeUses.use(realPath ?? path) else {
                close(descriptor)
                return .exhausted
            }
        case .missing: return .missing
        case .refused: return .refused
        }
        defer { close(descriptor) }
        var points: [RoutePoint] = []
        let reader = GPXRouteReader(documentName: path, onPoint: { points.append($0) }, onSkip: { [output] reason, line in
            output.skipped(reason, location: "\(path), line \(line)")
        })
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ExportFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var first = true
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if first && count == 0 {
                output.skipped("GPX file is empty: its route has no points", location: path)
                break
            }
            first = false
            let failure = reader.feed(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<max(count, 0)]), isLast: count <= 0)
            if let failure {
                output.skipped("GPX file is not well-formed (points after the error not imported): \(failure.message)",
                               location: "\(path), line \(failure.line)")
                break
            }
            if count <= 0 || reader.isFull { break }
        }
        return .found(points)
    }
}
