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

    func points(forReference reference: String) -> RouteLookup {
        let relative = reference.hasPrefix("/") ? String(reference.dropFirst()) : reference
        let path = folder + "/" + relative
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return .missing }
        defer { close(descriptor) }
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
