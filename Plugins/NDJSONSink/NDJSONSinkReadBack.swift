import Foundation
import HealthRouterCore

extension NDJSONSink: ReadableSink {
    /// The folder, when it does not exist (`ReadableSink`).
    public var missingStore: String? {
        FileManager.default.fileExists(atPath: configuration.directory) ? nil : configuration.directory
    }

    /// Reads the folder back (`ReadableSink`): first every tombstone line of `_deleted.ndjson`
    /// in file order, then, per sample file in name order, the last line of each id — unless
    /// the index records that id's last line as a tombstone. Two passes over the files: the
    /// first finds each id's last line (ids only, byte-level), the second decodes those
    /// lines with `PulsoJSONDecoder`. Call after `prepare()`.
    public func readBack(_ visit: (HealthItem) throws -> Void) throws {
        guard index != nil || readOnlyDeletedIds != nil else {
            throw SinkError.unavailable("\(configuration.directory): read before prepare")
        }
        let directory = configuration.directory
        let deletedName = NDJSONFileStem.deleted + ".ndjson"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") && $0 != deletedName }.sorted()
        let deletedPath = directory + "/" + deletedName
        if FileManager.default.fileExists(atPath: deletedPath) {
            try NDJSONLineReader.forEachLine(path: deletedPath) { line, number, _ in
                guard let (item, _) = try? PulsoJSONDecoder.decode(line), case .tombstone = item else {
                    logger.warning("\(deletedName):\(number) is not a tombstone line; skipped")
                    return
                }
                try visit(item)
            }
        }
        let deleted = try index?.deletedIds() ?? readOnlyDeletedIds ?? []

        // Pass 1: where each id's last line is.
        var last: [String: (file: Int32, line: Int32)] = [:]
        for (fileIndex, name) in names.enumerated() {
            try NDJSONLineReader.forEachLine(path: directory + "/" + name) { line, number, _ in
                if case .sample(let id, _) = NDJSONLineParser.parse(line) {
                    last[id] = (Int32(fileIndex), Int32(number))
                }
            }
        }
        // Pass 2: decode those lines.
        for (fileIndex, name) in names.enumerated() {
            try NDJSONLineReader.forEachLine(path: directory + "/" + name) { line, number, _ in
                guard case .sample(let id, _) = NDJSONLineParser.parse(line),
                      let at = last[id], at.file == Int32(fileIndex), at.line == Int32(number),
                      !deleted.contains(id) else { return }
                do {
                    let (item, isPulso) = try PulsoJSONDecoder.decode(line)
                    guard isPulso, case .sample(var sample) = item else { return try visit(item) }
                    SampleNormalizer.normalize(&sample, convention: .canonical)
                    try visit(.sample(sample))
                } catch let failure as PulsoJSONDecoder.Failure {
                    logger.warning("\(name):\(number) cannot be read back (\(failure)); skipped")
                }
            }
        }
    }
}
