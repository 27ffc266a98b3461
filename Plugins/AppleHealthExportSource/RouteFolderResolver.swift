import Foundation
import HealthRouterCore

/// Route files of an unpacked export: `<folder>/workout-routes/route_….gpx` next to
/// export.xml, read when a `FileReference` asks for one (one route in memory at a time).
final class RouteFolderResolver: RouteFileResolver {
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

    func points(forReference reference: String) -> RouteLookup {
        let relative = reference.hasPrefix("/") ? String(reference.dropFirst()) : reference
        let path = folder + "/" + relative
        // A reference is a path inside the export (`/workout-routes/…`): one that leads out of its
        // folder (`/../../etc/passwd`, or through a symbolic link) is not followed.
        if let real = Self.realPath(path), let realFolder, !real.hasPrefix(realFolder == "/" ? "/" : realFolder + "/") {
            output.skipped("route file reference leads out of the export's folder: not read", location: reference)
            return .refused
        }
        // Not blocking on a FIFO at that path; anything but a regular file is not read.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return .missing }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            output.skipped("route file is not a regular file (a folder, a pipe, a device): not read", location: path)
            return .refused
        }
        var points: [RoutePoint] = []
        let parser = GPXRouteParser(onPoint: { points.append($0) }, onSkip: { [output] reason, line in
            output.skipped(reason, location: "\(path), line \(line)")
        })
        let sax = SAXPushParser(handler: parser, documentName: path)
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
            let failure = sax.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<max(count, 0)]), final: count <= 0)
            if let failure {
                output.skipped("GPX file is not well-formed (points after the error not imported): \(failure.message)",
                               location: "\(path), line \(failure.line)")
                break
            }
            if count <= 0 { break }
        }
        return .found(points)
    }
}
