import Foundation
import HealthRouterCore

/// Reads an export.zip in two passes over the archive:
///
/// 1. Every entry's header and first bytes: the Health data file is the entry whose
///    first bytes contain `<!DOCTYPE HealthData` or `<HealthData` (its name is
///    localized: `Exportar.xml`, `导出.xml`); GPX files (`.gpx` or `<gpx`) are parsed into
///    a `RoutePointStore` on disk; JSON files (clinical records' FHIR resources) are kept in a
///    `ClinicalResourceStore` on disk; CSV files (ECGs) are noted. `__MACOSX/`, `.DS_Store`, `._*`
///    and `*_cda.xml` are ignored; any other file is reported as not imported.
/// 2. The data entry, streamed in `ExportFile.chunkSize` pieces into the parser.
/// 3. When pass 1 noted CSV files: each, read whole, becomes an ECG (`ElectrocardiogramCSV`), after
///    the data file, whose `ExportDate` the output hears before any item.
///
/// Pass 1 decompresses only the GPX entries and a few KiB of the others; libarchive
/// seeks past the rest. Progress counts the zip's bytes consumed during pass 2, then, when there
/// are ECGs, those consumed in pass 3 past where pass 2 stopped (the zip's end once both are done).
struct ZipExportReader {
    let file: ExportFile
    let userId: String?
    /// The source's `time_zone`, for samples that recorded no zone (`RecordedZoneOffsets`).
    let phoneZone: TimeZone?
    let stateDirectory: String
    let logger: Logger

    /// How many leading bytes of an entry are searched for the HealthData markers.
    static let sniffLength = 16 << 10

    /// The most bytes each temporary store (routes, clinical records) takes on disk: 16 times the
    /// zip's size, at least 64 MiB. A real export's route points take about twice what their GPX
    /// files take in the zip, its FHIR files up to ten times; a few MiB of zip holding GPX files of
    /// 250,000 identical points, or FHIR files of 16 MiB of one letter, filled gigabytes.
    static func temporaryByteLimit(zipSize: Int64) -> Int {
        let (product, overflow) = zipSize.multipliedReportingOverflow(by: 16)
        return max(64 << 20, overflow ? .max : Int(product))
    }

    func read(into output: SourceOutput) throws {
        let limit = Self.temporaryByteLimit(zipSize: file.size)
        let routes = try RoutePointStore(directory: stateDirectory, byteLimit: limit)
        let resources = try ClinicalResourceStore(directory: stateDirectory, byteLimit: limit)
        let (found, cutShort, electrocardiograms) = try scan(routes: routes, resources: resources, output: output)
        guard let dataEntry = found else {
            throw SourceError(input: file.path, problem: "the zip file contains no Apple Health data file (an XML file starting with <HealthData>)",
                              hint: "export again from the Health app (Profile → Export All Health Data); it sometimes writes an empty or incomplete zip")
        }
        let folderEnd = dataEntry.path.lastIndex(of: "/").map { dataEntry.path.index(after: $0) } ?? dataEntry.path.startIndex
        routes.paths.dataFolder = String(dataEntry.path[..<folderEnd])
        resources.paths.dataFolder = routes.paths.dataFolder
        logger.info("reading \(dataEntry.path) from \(file.path)", numbers: [("routes", LogNumber(routes.routeCount))])
        // A zip cut short (a copy that stopped) still gives what it holds: the data file up to the
        // cut, which the parser keeps, then the error.
        let (readUpTo, damage) = try stream(dataEntry, routes: routes, resources: resources, lastPass: electrocardiograms.isEmpty,
                                            output: output)
        // Read whole: a route file no workout referenced is reported, not dropped without a word.
        for path in routes.unreferencedPaths {
            output.skipped("GPX file that no workout in the export references (its points were not imported)",
                           location: "entry \(path)")
        }
        for path in resources.unreferencedPaths {
            output.skipped("JSON file that no ClinicalRecord in the export references (not imported)", location: "entry \(path)")
        }
        try readElectrocardiograms(electrocardiograms, after: readUpTo, output: output)
        if let damage {
            // Found at the data file's end only (the checksum covers it whole): what it held is in.
            throw SourceError(input: file.path, location: "entry \(dataEntry.path)",
                              problem: "the Health data file is damaged (\(damage)): it was read to its end and its items were "
                                  + "kept, but some of them may hold wrong values",
                              hint: "export again from the Health app (Profile → Export All Health Data), or copy the export.zip "
                                  + "again, and import the new one")
        }
        if let cutShort {
            // The archive's problem names the entry it could not read.
            throw SourceError(input: file.path, problem: "the zip ends early (\(cutShort.problem)): its Health data file was "
                                  + "read whole (its items were kept), but entries after it (workout routes, ECGs, clinical records' "
                                  + "files) are missing",
                              hint: "copy the export.zip again (the copy stopped before its end), then import it again")
        }
        // Read as a stream, entry by entry, a zip cut in its central directory (the index at its
        // end) reads whole: still a copy that stopped, which the user should know of.
        if !Self.hasEndOfCentralDirectory(file) {
            throw SourceError(input: file.path, problem: "the zip ends early (its central directory, the index at its end, is "
                                  + "cut off): every entry before the cut was read (its items were kept)",
                              hint: "copy the export.zip again (the copy stopped before its end), then import it again: "
                                  + "nothing is written twice")
        }
    }

    /// Whether the end of `file` holds a zip's end-of-central-directory record (`PK\u{5}\u{6}`,
    /// within its last 22 bytes plus the longest comment), as every whole zip does, ZIP64 too.
    static func hasEndOfCentralDirectory(_ file: ExportFile) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return true }
        defer { try? handle.close() }
        let tail = Int64(min(file.size, 22 + 65_535))
        guard (try? handle.seek(toOffset: UInt64(file.size - tail))) != nil,
              let bytes = try? handle.read(upToCount: Int(tail)), bytes.count >= 22 else { return false }
        let data = [UInt8](bytes)
        var index = data.count - 22
        while index >= 0 {
            if data[index] == 0x50, data[index + 1] == 0x4B, data[index + 2] == 5, data[index + 3] == 6 { return true }
            index -= 1
        }
        return false
    }

    /// Before anything is created: lists the zip's entries, headers only (no data is
    /// decompressed), up to the first that can be the Health data file (an `.xml` file, whatever
    /// its localized name, or a file without an extension, that is not ignored, or one without a
    /// readable name), and throws a
    /// `SourceError` when there is none: a zip of other files is not an export. Whether that entry
    /// really holds Health data is left to `read`, which looks at its content.
    static func checkEntries(of file: ExportFile) throws {
        let archive = try ZipArchive(path: file.path)
        var others: [String] = [], blank: [String] = []
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: sniffLength, alignment: 16)
        defer { head.deallocate() }
        while let entry = try archive.nextEntry() {
            guard !entry.isDirectory else { continue }
            if !isIgnored(entry.path) && (!entry.hasName || mayBeHealthData(entry.path)) {
                // A name that may be the data file's: its first bytes tell (an `.xml` web page is
                // not an export). One that cannot be read is left for the import to say why.
                let sniffed: Int?
                do { sniffed = try headPastWhiteSpace(archive, head: head, count: try archive.readFully(into: head)) } catch { return }
                guard let count = sniffed else {
                    blank.append(entry.path)
                    others.append(entry.path)
                    continue
                }
                if isHealthData(UnsafeRawBufferPointer(rebasing: head[0..<count])) { return }
            }
            others.append(entry.path)
        }
        let listed = others.isEmpty ? "it has no files"
            : "its files: " + others.prefix(5).joined(separator: ", ") + (others.count > 5 ? ", and \(others.count - 5) more" : "")
        let blanks = blank.prefix(5).map { "; \($0) begins with \(LeadingWhiteSpace.refusal)" }.joined()
        throw SourceError(input: file.path, problem: "this zip is not an Apple Health export: it holds no file that could be "
                              + "the Health data (\(listed))\(blanks)",
                          hint: "give the export.zip the Health app wrote (Profile → Export All Health Data), or the export.xml inside it")
    }

    /// Whether an entry's name allows it to be the data file, which is found by its content: an
    /// `.xml` name (localized: `exportar.xml`, `导出.xml`), or a name without an extension (a zip
    /// someone repacked). A name with another extension (`notes.txt`, `photo.jpg`) does not.
    static func mayBeHealthData(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.lowercased().hasSuffix(".xml") || !name.dropFirst().contains(".")
    }

    /// Pass 1: finds the data entry and indexes the GPX routes. An archive that ends early
    /// (truncated) after the data entry's start returns the entry and the error, for pass 2 to
    /// read what there is; before it, the error is thrown.
    private func scan(routes: RoutePointStore, resources: ClinicalResourceStore, output: SourceOutput)
        throws -> (ZipArchive.Entry?, cutShort: SourceError?, electrocardiograms: [ZipArchive.Entry]) {
        let archive = try ZipArchive(path: file.path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ExportFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var dataEntry: ZipArchive.Entry?
        var electrocardiograms: [ZipArchive.Entry] = []
        do {
            try scanEntries(archive, buffer: buffer, dataEntry: &dataEntry, electrocardiograms: &electrocardiograms,
                            routes: routes, resources: resources, output: output)
        } catch let error as SourceError where dataEntry != nil && error.input == file.path {
            // The archive's own failure, which names the zip (a route store that cannot be
            // written is not a cut zip).
            return (dataEntry, error, electrocardiograms)
        }
        return (dataEntry, nil, electrocardiograms)
    }

    private func scanEntries(_ archive: ZipArchive, buffer: UnsafeMutableRawBufferPointer, dataEntry: inout ZipArchive.Entry?,
                             electrocardiograms: inout [ZipArchive.Entry], routes: RoutePointStore,
                             resources: ClinicalResourceStore, output: SourceOutput) throws {
        // The paths of the entries read as the data file, a route, an ECG or a clinical record: a
        // later entry of one of these names (a zip repacked from a folder twice; Apple never writes
        // one) is reported and not read, so that the first of a name is the one used.
        var taken: Set<String> = []
        while let entry = try archive.nextEntry() {
            guard !entry.isDirectory, !Self.isIgnored(entry.path) else { continue }
            if taken.contains(entry.path) {
                output.skipped("Zip entry of the same name as one before it, not read (the first of that name is used)",
                               location: "entry \(entry.path)")
                continue
            }
            do {
                if try scanEntry(entry, archive, buffer: buffer, dataEntry: &dataEntry, electrocardiograms: &electrocardiograms,
                                 routes: routes, resources: resources, output: output) {
                    taken.insert(entry.path)
                }
            } catch let error as SourceError where archive.entryUnreadable && (dataEntry != nil || !Self.mayBeHealthData(entry.path)) {
                taken.insert(entry.path)
                // One entry that cannot be read (an unsupported compression method, an encrypted
                // entry): the entries after it can, unlike those of a zip that ends early. One that
                // may be the data file, before it was found, is the import's error (an encrypted zip).
                let kept = routes.hasOpenRoute ? "; its points read before it were kept" : ""
                if routes.hasOpenRoute {
                    try routes.endRoute()
                } else if entry.path.lowercased().hasSuffix(".gpx") {
                    routes.refuse(path: entry.path)
                }
                if entry.path.lowercased().hasSuffix(".json") { resources.refuse(path: entry.path) }
                output.skipped("Zip entry that cannot be read (\(error.problem)): left out\(kept)", location: "entry \(entry.path)")
            }
        }
    }

    /// Scans one entry (`scanEntries`). Returns whether it was taken as the data file, a route, an
    /// ECG or a clinical record (read, or reported as unusable).
    private func scanEntry(_ entry: ZipArchive.Entry, _ archive: ZipArchive, buffer: UnsafeMutableRawBufferPointer,
                           dataEntry: inout ZipArchive.Entry?, electrocardiograms: inout [ZipArchive.Entry],
                           routes: RoutePointStore, resources: ClinicalResourceStore, output: SourceOutput) throws -> Bool {
        let sniffed = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Self.sniffLength])
        let read = try archive.readFully(into: sniffed)
        // A data file led by more blank lines than the sniff holds: its first other bytes tell (pass 2
        // reads the entry again from its start).
        guard let head = Self.mayBeHealthData(entry.path) ? try Self.headPastWhiteSpace(archive, head: sniffed, count: read) : read else {
            output.skipped("File in the zip not imported (it begins with \(LeadingWhiteSpace.refusal): not part of the "
                               + "Health data)", location: "entry \(entry.path)")
            return false
        }
        let headBytes = UnsafeRawBufferPointer(rebasing: buffer[0..<head])
        if Self.isHealthData(headBytes) {
            if dataEntry == nil {
                dataEntry = entry
            } else {
                output.skipped("A second Health data file in the zip was not imported", location: "entry \(entry.path)")
            }
        } else if entry.path.lowercased().hasSuffix(".gpx") || Self.contains(headBytes, "<gpx") {
            try indexRoute(entry, head: head, buffer: buffer, archive: archive, routes: routes, output: output)
        } else if entry.path.lowercased().hasSuffix(".csv") {
            electrocardiograms.append(entry)
        } else if entry.path.lowercased().hasSuffix(".json") {
            try keepResource(entry, head: head, buffer: buffer, archive: archive, resources: resources, output: output)
        } else {
            if read > 0 {
                output.skipped("File in the zip not imported (not part of the Health data)", location: "entry \(entry.path)")
            }
            return false
        }
        return true
    }

    /// Keeps a JSON entry (a clinical record's FHIR resource) whole in `resources`; the first
    /// `head` bytes are in `buffer` already.
    private func keepResource(_ entry: ZipArchive.Entry, head: Int, buffer: UnsafeMutableRawBufferPointer,
                              archive: ZipArchive, resources: ClinicalResourceStore, output: SourceOutput) throws {
        var bytes = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<head]))
        // A head shorter than the sniff is the whole entry.
        if head == Self.sniffLength,
           try !archive.readRest(appendingTo: &bytes, through: buffer, limit: ClinicalResourceStore.largestFile) {
            output.skipped("JSON file larger than \(ClinicalResourceStore.largestFile >> 20) MiB in the zip (not imported)",
                           location: "entry \(entry.path)")
            resources.refuse(path: entry.path)
            return
        }
        if let warning = archive.entryWarning {
            output.skipped("Zip entry may be damaged (\(warning)): this clinical-record file was not imported",
                           location: "entry \(entry.path)")
            resources.refuse(path: entry.path)
            return
        }
        guard resources.hasRoom(for: bytes.count) else {
            output.skipped("JSON file past the \(resources.byteLimit >> 20) MiB the zip's clinical records may take on disk "
                               + "(16 times the zip's size, at least 64 MiB: a zip that expands far more than an export does; "
                               + "not imported)",
                           location: "entry \(entry.path)")
            resources.refuse(path: entry.path)
            return
        }
        try resources.add(path: entry.path, bytes: bytes)
    }

    private func indexRoute(_ entry: ZipArchive.Entry, head: Int, buffer: UnsafeMutableRawBufferPointer,
                            archive: ZipArchive, routes: RoutePointStore, output: SourceOutput) throws {
        routes.beginRoute(path: entry.path)
        let reader = GPXRouteReader(documentName: entry.path, onPoint: { routes.append($0) }, onSkip: { reason, line in
            output.skipped(reason, location: "entry \(entry.path), line \(line)")
        })
        var count = head
        if head == 0 {
            output.skipped("GPX file is empty: its route has no points", location: "entry \(entry.path)")
            try routes.endRoute()
            return
        }
        while true {
            if let failure = reader.feed(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), isLast: count == 0) {
                output.skipped("GPX file is not well-formed (points after the error not imported): \(failure.message)",
                               location: "entry \(entry.path), line \(failure.line)")
                break
            }
            if count == 0 || reader.isFull || routes.routeIsCut { break }
            count = try archive.read(into: buffer)
        }
        if routes.routeIsCut {
            output.skipped("GPX file past the \(routes.byteLimit >> 20) MiB the zip's routes may take on disk (16 times the "
                               + "zip's size, at least 64 MiB: a zip that expands far more than an export does; its points from "
                               + "here on not imported)",
                           location: "entry \(entry.path)")
        }
        try routes.endRoute()
        if let warning = archive.entryWarning {
            output.skipped("Zip entry may be damaged (\(warning)); its points were kept", location: "entry \(entry.path)")
        }
    }

    /// Pass 3: the CSV files pass 1 noted, each read whole (one in memory at a time) and emitted as
    /// an ECG, or reported. An entry that cannot be read ends the pass, reported with those left:
    /// the data file's items are in the journal already. Progress moves on from `readUpTo` (where
    /// pass 2 left it) as pass 3 passes it, and ends at the zip's size.
    private func readElectrocardiograms(_ entries: [ZipArchive.Entry], after readUpTo: Int64, output: SourceOutput) throws {
        guard let last = entries.last?.index else { return }
        defer { output.progress(bytes: file.size, total: file.size) }
        let wanted = Set(entries.map(\.index))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ExportFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        let archive: ZipArchive
        do { archive = try ZipArchive(path: file.path) } catch { return reportUnread(entries, error, output: output) }
        while true {
            var entry: ZipArchive.Entry?
            var bytes: [UInt8] = []
            var tooLarge = false
            do {
                guard let next = try archive.nextEntry() else { break }
                guard wanted.contains(next.index) else { continue }
                entry = next
                tooLarge = try !archive.readRest(appendingTo: &bytes, through: buffer, limit: ElectrocardiogramCSV.largestFile)
            } catch let error as SourceError where archive.entryUnreadable {
                // This entry alone (an unsupported compression method): the next can be read.
                done += 1
                output.skipped("Zip entry that cannot be read (\(error.problem)): this ECG was not imported",
                               location: "entry \(entry?.path ?? "?")")
                if entry?.index == last { break }
                continue
            } catch {
                return reportUnread(Array(entries.dropFirst(done)), error, output: output)
            }
            guard let entry else { continue }
            done += 1
            if !tooLarge, let warning = archive.entryWarning {
                output.skipped("Zip entry may be damaged (\(warning)): this ECG was not imported", location: "entry \(entry.path)")
                continue
            }
            try ElectrocardiogramCSV.emit(tooLarge ? nil : bytes, location: "entry \(entry.path)", userId: userId,
                                          phoneZone: phoneZone, output: output)
            output.progress(bytes: max(readUpTo, min(archive.compressedBytesConsumed, file.size)), total: file.size)
            if entry.index == last { break }
        }
    }

    private func reportUnread(_ entries: [ZipArchive.Entry], _ error: any Error, output: SourceOutput) {
        guard let first = entries.first else { return }
        let problem = (error as? SourceError)?.problem ?? "\(error)"
        output.skipped("ECG CSV could not be read from the zip (\(problem)): \(NumberText.counted(entries.count, "file")) "
                           + "from here on not imported", location: "entry \(first.path)")
    }

    /// Pass 2: streams the data entry into the parser. Returns the zip's bytes consumed, which
    /// progress reports as the whole zip at the end when this is the `lastPass`, and the damage
    /// libarchive found at the entry's end (a checksum that does not match), if any.
    private func stream(_ dataEntry: ZipArchive.Entry, routes: RoutePointStore, resources: ClinicalResourceStore,
                        lastPass: Bool, output: SourceOutput) throws -> (Int64, damage: String?) {
        let archive = try ZipArchive(path: file.path)
        var found = false
        while let entry = try archive.nextEntry() {
            if entry.index == dataEntry.index { found = true; break }
        }
        guard found else {
            throw SourceError(input: file.path, location: "entry \(dataEntry.path)",
                              problem: "the data file disappeared from the zip while it was read",
                              hint: "do not change the file during an import; run it again")
        }
        let document = ExportDocumentParser(input: file.path, entry: dataEntry.path, userId: userId,
                                            zoneOffsets: RecordedZoneOffsets(phoneZone: phoneZone), routes: routes,
                                            resources: resources, output: output, logger: logger)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ExportFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var reported: Int64 = 0
        while true {
            let count: Int
            do { count = try archive.read(into: buffer) } catch { throw document.readFailed(error) }
            try document.feed(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), isLast: count == 0)
            reported = max(reported, min(archive.compressedBytesConsumed, file.size))
            output.progress(bytes: count == 0 && lastPass ? file.size : reported, total: file.size)
            if count == 0 { break }
        }
        logger.info("read \(file.path)", [("entry", dataEntry.path)] + document.summary.fields, numbers: document.summary.numbers)
        return (reported, archive.entryWarning)
    }

    /// macOS junk and the HL7 CDA twin of export.xml (`export_cda.xml`, localized too).
    static func isIgnored(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        if components.contains("__MACOSX") { return true }
        guard let name = components.last else { return true }
        return name == ".DS_Store" || name.hasPrefix("._") || name.lowercased().hasSuffix("_cda.xml")
    }

    /// When `head` is full (`count` is its size) of white space (spaces, tabs, line ends, after an
    /// optional UTF-8 byte-order mark): reads the archive's current entry on to its first other byte
    /// and fills `head` with the bytes from there, returning how many (0: the entry is white space to
    /// its end). Otherwise `count`, `head` untouched. An export.xml led by more blank lines than the
    /// sniff holds was no Health data file, and its zip no export. nil: the entry begins with more
    /// than `LeadingWhiteSpace.limit` (64 MiB) of white space, and is no Health data file (read no
    /// further: an entry of 512 MiB of spaces was read to its end, 73 s, before it was refused).
    static func headPastWhiteSpace(_ archive: ZipArchive, head: UnsafeMutableRawBufferPointer, count: Int) throws -> Int? {
        func leading(_ bytes: UnsafeMutableRawBufferPointer.SubSequence) -> Int {
            LeadingWhiteSpace.measure(UnsafeRawBufferPointer(UnsafeMutableRawBufferPointer(rebasing: bytes))).count
        }
        let start = count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0
        guard count == head.count, count > start, leading(head[start..<count]) == count - start else { return count }
        var passed = count - start
        while true {
            let count = try archive.readFully(into: head)
            let other = leading(head[0..<count])
            passed += other
            if passed > LeadingWhiteSpace.limit { return nil }
            guard other < count else {
                if count < head.count { return 0 }
                continue
            }
            let kept = count - other
            memmove(head.baseAddress!, head.baseAddress! + other, kept)
            return count < head.count ? kept : kept + (try archive.readFully(into: UnsafeMutableRawBufferPointer(rebasing: head[kept...])))
        }
    }

    /// Whether the first bytes of a file (`sniffLength` of them) show a Health data file.
    static func isHealthData(_ head: UnsafeRawBufferPointer) -> Bool {
        if contains(head, "<!DOCTYPE HealthData") { return true }
        // The document element, when the first bytes show it (`<HealthData` in a web page's
        // comment does not make it an export); else whether the tag is there at all.
        if let root = XMLRootSniffer.root(head) { return root.name == "HealthData" }
        return contains(head, "<HealthData")
    }

    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        let length = needle.utf8CodeUnitCount
        guard haystack.count >= length, let base = haystack.baseAddress else { return false }
        // memmem needs _GNU_SOURCE, which Glibc's module map does not set.
        var offset = 0
        while offset + length <= haystack.count {
            guard let first = memchr(base + offset, Int32(needle.utf8Start[0]), haystack.count - length + 1 - offset) else {
                return false
            }
            let position = base.distance(to: UnsafeRawPointer(first))
            if memcmp(base + position, needle.utf8Start, length) == 0 { return true }
            offset = position + 1
        }
        return false
    }
}
