import Foundation
import HealthRouterCore

/// Reads a plain export.xml from disk in `ExportFile.chunkSize` reads. GPX files are
/// taken from the `workout-routes/` folder next to it, when there is one, and clinical records'
/// FHIR files from its `clinical-records/`; after the document, the
/// ECG CSVs of an unpacked export (`electrocardiograms/*.csv`, or `ecg*.csv` in another folder
/// beside export.xml: the folder's name is localized) become ECGs (`ElectrocardiogramCSV`).
struct XMLFileExportReader {
    let file: ExportFile
    let userId: String?
    /// The source's `time_zone`, for samples that recorded no zone (`RecordedZoneOffsets`).
    let phoneZone: TimeZone?
    let logger: Logger

    func read(into output: SourceOutput) throws {
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw SourceError(input: file.path, problem: "cannot read the export: \(String(cString: strerror(errno)))",
                              cannotRead: true)
        }
        defer { close(descriptor) }
        let folder = (file.path as NSString).deletingLastPathComponent
        let files = ExportFolderResolver(folder: folder.isEmpty ? "." : folder, output: output)
        // Progress counts the ECG files after the document's bytes: their pass moves it too.
        let electrocardiograms = Self.electrocardiogramFiles(in: folder.isEmpty ? "." : folder).map { ($0, Self.size(of: $0)) }
        let total = electrocardiograms.reduce(file.size) { $0 + $1.1 }
        let document = ExportDocumentParser(input: file.path, entry: nil, userId: userId, zoneOffsets: RecordedZoneOffsets(phoneZone: phoneZone),
                                            routes: files, resources: files,
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
            output.progress(bytes: consumed, total: total)
            try document.feed(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), isLast: count == 0)
            if count == 0 { break }
        }
        logger.info("read \(file.path)", document.summary.fields, numbers: document.summary.numbers)
        for (path, size) in electrocardiograms {
            consumed = min(consumed + size, total)
            let bytes: [UInt8]?
            do { bytes = try Self.contents(of: path) } catch {
                output.skipped("ECG CSV could not be read (\(error.localizedDescription)): not imported", location: path)
                output.progress(bytes: consumed, total: total)
                continue
            }
            try ElectrocardiogramCSV.emit(bytes, location: path, userId: userId, phoneZone: phoneZone, output: output)
            output.progress(bytes: consumed, total: total)
        }
        if consumed < total { output.progress(bytes: total, total: total) }
    }

    /// The ECG CSVs of the export unpacked in `folder`, in name order: regular files (no symbolic
    /// links) in its folders (not further down), named `*.csv` in `electrocardiograms`, or `ecg*.csv`.
    static func electrocardiogramFiles(in folder: String) -> [String] {
        let manager = FileManager.default
        var files: [String] = []
        for name in ((try? manager.contentsOfDirectory(atPath: folder)) ?? []).sorted() where isFolder(folder + "/" + name) {
            let inECGFolder = name.lowercased() == "electrocardiograms"
            for file in ((try? manager.contentsOfDirectory(atPath: folder + "/" + name)) ?? []).sorted() {
                let lowered = file.lowercased()
                guard lowered.hasSuffix(".csv"), inECGFolder || lowered.hasPrefix("ecg"),
                      isRegularFile(folder + "/" + name + "/" + file) else { continue }
                files.append(folder + "/" + name + "/" + file)
            }
        }
        return files
    }

    /// The file's size in bytes (0 when it cannot be read: it is then reported as unreadable).
    private static func size(of path: String) -> Int64 {
        var status = stat()
        return lstat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    private static func isFolder(_ path: String) -> Bool { fileType(path) == S_IFDIR }
    private static func isRegularFile(_ path: String) -> Bool { fileType(path) == S_IFREG }

    private static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// The file's bytes; nil when it is larger than an ECG can be.
    private static func contents(of path: String) throws -> [UInt8]? {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let data = try handle.read(upToCount: ElectrocardiogramCSV.largestFile + 1) ?? Data()
        return data.count > ElectrocardiogramCSV.largestFile ? nil : [UInt8](data)
    }
}
