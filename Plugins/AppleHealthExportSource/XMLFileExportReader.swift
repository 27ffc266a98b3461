import Foundation
import HealthRouterCore

/// Reads a plain export.xml from disk in `ExportFile.chunkSize` reads. GPX files are
/// taken from the `workout-routes/` folder next to it, when there is one.
struct XMLFileExportReader {
    let file: ExportFile
    let userId: String?
    let logger: Logger

    func read(into output: SourceOutput) throws {
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw SourceError(input: file.path, problem: "cannot read the export: \(String(cString: strerror(errno)))",
                              cannotRead: true)
        }
        defer { close(descriptor) }
        let folder = (file.path as NSString).deletingLastPathComponent
        let routes = RouteFolderResolver(folder: folder.isEmpty ? "." : folder, output: output)
        let document = ExportDocumentParser(input: file.path, entry: nil, userId: userId, routes: routes,
                                            output: output, logger: logger)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ExportFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var consumed: Int64 = 0
        while true {
            let count = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
            guard count >= 0 else {
                if errno == EINTR { continue }
                throw SourceError(input: file.path, location: "byte \(consumed)",
                                  problem: "reading failed: \(String(cString: strerror(errno)))")
            }
            consumed += Int64(count)
            // Before the chunk is parsed: a chunk that fails still counts as read (the summary
            // says how far a file that stopped with an error was read).
            output.progress(bytes: consumed, total: file.size)
            try document.feed(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), isLast: count == 0)
            if count == 0 { break }
        }
        logger.info("read \(file.path)", document.summary)
    }
}
