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
    /// lines with `PulsoJSONDecoder`. Call after `prepare()` or `prepareForReading()`.
    ///
    /// After `prepareForReading()`, the files are read as `prepare()`'s recovery would leave them
    /// (`NDJSONIndexRecovery`): the bytes past what the index covers are left out when a batch was
    /// in flight (the recovery cuts them) or another process writes the folder, else they
    /// are lines another program wrote, indexed after the indexed ones as the recovery indexes
    /// them: file by file, sample files first and `_deleted.ndjson` last, a sample line making its
    /// id live again and a tombstone line deleting its ids, whichever file either is in. A file
    /// shorter than the index says, or no index, makes every line such a line.
    ///
    /// A line it reads that cannot be decoded (a sample's last line, a line of `_deleted.ndjson`)
    /// throws `SinkError.unreadable`, naming the file, the line and what to do; so does a sample
    /// line another program wrote into `_deleted.ndjson`, which the recovery takes as live.
    public func readBack(_ visit: (HealthItem) throws -> Void) throws {
        guard index != nil || readOnlyView != nil else {
            throw SinkError.unavailable("\(configuration.directory): read before prepare")
        }
        let directory = configuration.directory
        let deletedName = NDJSONFileStem.deleted + ".ndjson"
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".ndjson") && !$0.hasPrefix(".") && $0 != deletedName }.sorted()
        let deletedPath = directory + "/" + deletedName
        let hasDeleted = FileManager.default.fileExists(atPath: deletedPath)

        // Read-only: where each file's indexed bytes end, and what the bytes after them are.
        var view = readOnlyView
        func size(_ stem: String) -> Int64 {
            var info = stat()
            return stat(directory + "/" + stem + ".ndjson", &info) == 0 ? Int64(info.st_size) : 0
        }
        if let covered = view?.covered, covered.contains(where: { stem, length in size(stem) < length }) {
            view = NDJSONIndex.ReadOnlyView()
        }
        func isPastIndex(_ name: String, _ end: Int64) -> Bool {
            guard let view else { return false }
            return end > view.covered[String(name.dropLast(".ndjson".count)), default: 0]
        }
        let cutsPastIndex = view?.inFlight == true || view?.writerActive == true
        // A line it cannot read (edited by hand, damaged) stops the read, as a row does in the other
        // stores: left out, a migration or dump would go on without a sample (or a deletion), and
        // `migrate --verify`, reading the folder alike, would find nothing missing.
        func unreadable(_ file: String, _ number: Int, _ problem: String, writeBack what: String) -> SinkError {
            .unreadable("\(directory)/\(file):\(number)\(problem): was the file edited by hand? Write \(what) back as "
                        + "healthrouter wrote it, or delete the line and " + SinkError.rewriteAdvice(sink: self.name))
        }

        // Lines past the index that the recovery would index, per file stem, in line order.
        var foreign: [(stem: String, lines: [NDJSONLineParser.Line])] = []
        func noteForeign(_ name: String, _ line: NDJSONLineParser.Line?) {
            guard let line else { return }
            let stem = String(name.dropLast(".ndjson".count))
            if foreign.last?.stem == stem { foreign[foreign.count - 1].lines.append(line) } else { foreign.append((stem, [line])) }
        }
        if hasDeleted {
            try NDJSONLineReader.forEachLine(path: deletedPath) { line, number, end in
                let pastIndex = isPastIndex(deletedName, end)
                if pastIndex && cutsPastIndex { return }
                if pastIndex { noteForeign(deletedName, NDJSONLineParser.parse(line)) }
                guard let (item, _) = try? PulsoJSONDecoder.decode(line), case .tombstone = item else {
                    throw unreadable(deletedName, number, " is not a tombstone line", writeBack: "the tombstone")
                }
                try visit(item)
            }
        }

        // Pass 1: where each id's last line is.
        var last = NDJSONLastLines()
        for (fileIndex, name) in names.enumerated() {
            try NDJSONLineReader.forEachLine(path: directory + "/" + name) { line, number, end in
                let pastIndex = isPastIndex(name, end)
                if pastIndex && cutsPastIndex { return }
                let parsed = NDJSONLineParser.parse(line)
                if case .sample(let id, _) = parsed { last[id] = .init(file: Int32(fileIndex), line: Int32(number)) }
                if pastIndex { noteForeign(name, parsed) }
            }
        }
        // Ids whose last row (an id may have several) records a deletion.
        var deleted: Set<String>
        if let index {
            deleted = try index.deletedIds()
        } else {
            deleted = view?.deleted ?? []
            let deletedStem = NDJSONFileStem.deleted
            for file in foreign.sorted(by: { ($0.stem == deletedStem ? 1 : 0, $0.stem) < ($1.stem == deletedStem ? 1 : 0, $1.stem) }) {
                for line in file.lines {
                    switch line {
                    case .sample(let id, _): deleted.remove(id)
                    case .tombstone(let ids): deleted.formUnion(ids)
                    }
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
                    throw unreadable(name, number, ", the line of sample '\(id)', is unreadable: \(failure)", writeBack: "the line")
                }
            }
        }
    }
}
