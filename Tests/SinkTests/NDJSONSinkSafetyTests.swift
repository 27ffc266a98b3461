import TestSupport
import Foundation
import HealthRouterCore
import Testing
@testable import NDJSONSink

/// What the ndjson sink holds open, follows and accepts as its folder: a bounded number of
/// descriptors whatever the number of types, no symbolic link nor another user's file written,
/// its folder made 0700 and refused when others may write it.
@Suite struct NDJSONSinkSafetyTests {
    func makeSink(_ directory: String) -> NDJSONSink {
        NDJSONSink(configuration: .init(directory: directory), context: SinkFixtures.context(directory))
    }

    /// A new temporary folder, and a sink prepared on its folder `out` (the directory given): the
    /// caller closes the sink, then removes the folder.
    func preparedSink() throws -> (temporary: TemporaryDirectory, directory: String, sink: NDJSONSink) {
        let temporary = try TemporaryDirectory()
        let sink = makeSink(temporary.path + "/out")
        do {
            _ = try sink.prepare()
        } catch {
            temporary.remove()
            throw error
        }
        return (temporary, temporary.path + "/out", sink)
    }

    /// What the sink says of a symbolic link at `link`, where it would write.
    func symbolicLinkRefusal(_ link: String) -> String {
        "\(link) is a symbolic link: the ndjson sink writes only regular files it owns; remove it"
    }

    /// `count` samples, each of a type of its own (`com.example.Type<n>`), ids `<prefix>-<n>`.
    func samples(_ count: Int, prefix: String) -> [Sample] {
        (0..<count).map { n in
            var sample = SinkFixtures.steps
            sample.type = "com.example.Type\(n)"
            sample.id = "\(prefix)-\(n)"
            return sample
        }
    }

    func path(_ directory: String, type n: Int) -> String {
        directory + "/" + NDJSONFileStem.stem(forType: "com.example.Type\(n)") + ".ndjson"
    }

    /// The ids of a file's lines, in order.
    func ids(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["uuid"] as? String)
        }
    }

    /// This process's descriptors open on `.ndjson` files in `directory` (/proc/self/fd): other
    /// tests running meanwhile open files of their own, elsewhere.
    func openNDJSONFiles(in directory: String) -> Int {
        let folder = (directory as NSString).resolvingSymlinksInPath + "/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            return target.hasPrefix(folder) && target.hasSuffix(".ndjson")
        }.count
    }

    func size(_ path: String) -> Int64? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    func expectMisconfigured(_ expected: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("no error; expected one saying \(expected)")
        } catch SinkError.misconfigured(let reason) {
            #expect(reason.contains(expected), "\(reason)")
        } catch {
            Issue.record("\(error); expected misconfigured, saying \(expected)")
        }
    }

    // MARK: - Open files

    /// A client sending many made-up type names made the sink hold a descriptor per type for good
    /// (1,500 types: `Too many open files`, the sink failed for good): at most
    /// `maximumOpenFiles` stay open, every file still gets its lines, once.
    @Test func manyTypesKeepABoundedNumberOfFilesOpen() throws {
        let (temporary, directory, sink) = try preparedSink()
        defer { temporary.remove() }
        defer { sink.close() }
        #expect(openNDJSONFiles(in: directory) == 0)

        let first = SinkFixtures.entries(samples(300, prefix: "T"))
        try sink.write(first, cursor: 300)
        #expect(openNDJSONFiles(in: directory) <= NDJSONSink.maximumOpenFiles)
        for n in 0..<300 { #expect(try ids(path(directory, type: n)) == ["T-\(n)"]) }

        // A second batch reopens the files closed meanwhile and appends at their ends.
        let second = SinkFixtures.entries(samples(300, prefix: "U"), from: 301)
        try sink.write(second, cursor: 600)
        #expect(openNDJSONFiles(in: directory) <= NDJSONSink.maximumOpenFiles)
        for n in 0..<300 { #expect(try ids(path(directory, type: n)) == ["T-\(n)", "U-\(n)"]) }

        // Re-delivered, to this sink and to one opened again: no second line for an id.
        try sink.write(first, cursor: 600)
        sink.close()
        let again = makeSink(directory)
        #expect(try again.prepare() == 600)
        defer { again.close() }
        try again.write(first + second, cursor: 600)
        #expect(openNDJSONFiles(in: directory) <= NDJSONSink.maximumOpenFiles)
        for n in 0..<300 { #expect(try ids(path(directory, type: n)) == ["T-\(n)", "U-\(n)"]) }
    }

    /// A crash with a batch of many types in flight: the recovery cuts every file back, one file
    /// at a time, and the batch written again keeps the bound and writes each id once.
    @Test func aCrashWithManyTypesInFlightIsRecoveredWithinTheBound() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/out"
        let indexPath = directory + "/" + NDJSONIndex.fileName
        let sink = makeSink(directory)
        _ = try sink.prepare()
        try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
        sink.close()
        // The batch appended, the index as it was before, with the batch in flight.
        try FileManager.default.copyItem(atPath: indexPath, toPath: temporary.path + "/index-before")
        let batch = SinkFixtures.entries(samples(300, prefix: "T"), from: 2)
        let writer = makeSink(directory)
        _ = try writer.prepare()
        try writer.write(batch, cursor: 301)
        writer.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
        try FileManager.default.moveItem(atPath: temporary.path + "/index-before", toPath: indexPath)
        try NDJSONIndex(path: indexPath).setInFlight(true)

        let restarted = makeSink(directory)
        #expect(try restarted.prepare() == 1)
        defer { restarted.close() }
        #expect(openNDJSONFiles(in: directory) == 0)
        #expect((0..<300).filter { size(path(directory, type: $0)) != 0 } == [], "types whose file kept lines")
        try restarted.write(batch, cursor: 301)
        #expect(openNDJSONFiles(in: directory) <= NDJSONSink.maximumOpenFiles)
        for n in 0..<300 { #expect(try ids(path(directory, type: n)) == ["T-\(n)"]) }
    }

    /// A batch that fails after some of its files were flushed and closed again (to keep the
    /// bound) takes its lines back out of those too; the file it failed on, a symbolic link put in
    /// the folder, is not followed.
    @Test func aFailedBatchTakesItsLinesBackOutOfFilesClosedMeanwhile() throws {
        let (temporary, directory, sink) = try preparedSink()
        defer { temporary.remove() }
        defer { sink.close() }
        let outside = temporary.path + "/someone-elses-file"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: outside))
        let link = directory + "/heartRate.ndjson"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)

        let batch = SinkFixtures.entries(samples(100, prefix: "T") + [SinkFixtures.heartRate])
        expectMisconfigured(symbolicLinkRefusal(link)) {
            try sink.write(batch, cursor: 101)
        }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "precious\n")
        #expect((0..<100).filter { size(path(directory, type: $0)) != 0 } == [], "types whose file kept lines")

        try FileManager.default.removeItem(atPath: link)
        try sink.write(batch, cursor: 101)
        for n in 0..<100 { #expect(try ids(path(directory, type: n)) == ["T-\(n)"]) }
        #expect(try ids(link) == [SinkFixtures.heartRate.id])
    }

    // MARK: - Symbolic links and other files

    /// The recovery cut an in-flight batch's bytes off by path, through a symbolic link: someone
    /// who may write the folder could have it truncate any file the daemon's user may write.
    @Test func theRecoveryTruncatesNothingThroughASymbolicLink() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/out"
        let sink = makeSink(directory)
        _ = try sink.prepare()
        try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
        sink.close()
        try NDJSONIndex(path: directory + "/" + NDJSONIndex.fileName).setInFlight(true)
        let outside = temporary.path + "/someone-elses-file"
        try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: outside))
        let link = directory + "/heartRate.ndjson"
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)

        let restarted = makeSink(directory)
        defer { restarted.close() }
        expectMisconfigured(symbolicLinkRefusal(link)) {
            _ = try restarted.prepare()
        }
        #expect(size(outside) == 5000)
    }

    /// The lock file was opened with O_CREAT through a symbolic link (a dangling one made its
    /// target), and SQLite follows one to the index: both are refused, nothing made elsewhere.
    @Test func theLockFileAndTheIndexAreNotFollowed() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/out"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let target = temporary.path + "/made-elsewhere"
        for name in [".healthrouter-index.lock", NDJSONIndex.fileName, NDJSONIndex.fileName + "-wal"] {
            let link = directory + "/" + name
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let sink = makeSink(directory)
            expectMisconfigured(symbolicLinkRefusal(link)) {
                _ = try sink.prepare()
            }
            sink.close()
            #expect(size(target) == nil, "\(name)")
            try FileManager.default.removeItem(atPath: link)
        }
        let sink = makeSink(directory)
        #expect(try sink.prepare() == 0)
        sink.close()
    }

    /// A FIFO (with a reader, so that opening it does not fail) where a file goes: refused, not
    /// written into.
    @Test func aFIFOWhereAFileGoesIsRefused() throws {
        let (temporary, directory, sink) = try preparedSink()
        defer { temporary.remove() }
        defer { sink.close() }
        let fifo = directory + "/heartRate.ndjson"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        expectMisconfigured("\(fifo) is not a regular file (a FIFO, a socket or a device): the ndjson sink writes only regular files it owns; remove it") {
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
        }
    }

    /// As root (CI): a file, or the folder, of another user is refused, saying to chown it.
    @Test(.enabled(if: geteuid() == 0)) func anotherUsersFileIsRefusedAndTheirFolderTaken() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/out"
        let sink = makeSink(directory)
        _ = try sink.prepare()
        let file = directory + "/heartRate.ndjson"
        try Data().write(to: URL(fileURLWithPath: file))
        #expect(chown(file, 65534, 65534) == 0)
        expectMisconfigured("\(file) is owned by uid 65534, not by the user running healthrouter (uid 0): the ndjson sink writes only regular files it owns; chown it to that user, or remove it") {
            try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
        }
        sink.close()
        try FileManager.default.removeItem(atPath: file)

        // Another user's folder it may write (an admin's, shared with the service's group) is
        // taken: its files are its own, never followed through a link.
        #expect(chown(directory, 65534, 65534) == 0)
        #expect(chmod(directory, 0o2770) == 0)
        let other = makeSink(directory)
        defer { other.close() }
        #expect(try other.prepare() == 0)
        try other.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains(SinkFixtures.heartRate.id))
    }

    // MARK: - The folder

    /// Health data: folders the sink makes are 0700 whatever the umask gives; an existing one
    /// keeps its mode (a group its owner gave access keeps it).
    @Test func aFolderItMakesIsItsUsersAloneAndAnExistingOneKeepsItsMode() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/lake/ndjson"
        let sink = makeSink(directory)
        _ = try sink.prepare()
        sink.close()
        #expect(mode(temporary.path + "/lake") == 0o700)
        #expect(mode(directory) == 0o700)

        let shared = temporary.path + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o2770) == 0)
        let group = makeSink(shared)
        _ = try group.prepare()
        group.close()
        #expect(mode(shared) == 0o2770)
    }

    /// A folder every user may write (sticky or not) is refused, saying `chmod o-w`; a symbolic
    /// link to a folder, the config's choice, is taken.
    @Test func aFolderOthersMayWriteIsRefused() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/open"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        for mode: mode_t in [0o777, 0o1777] {
            #expect(chmod(directory, mode) == 0)
            let sink = makeSink(directory)
            expectMisconfigured("\(directory) is writable by every user (mode \(String(mode, radix: 8))): another user could replace the sink's files or link them elsewhere; chmod o-w \(directory)") {
                _ = try sink.prepare()
            }
            sink.close()
        }
        #expect(chmod(directory, 0o755) == 0)
        let link = temporary.path + "/linked"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory)
        let sink = makeSink(link)
        #expect(try sink.prepare() == 0)
        try sink.write(SinkFixtures.entries([SinkFixtures.heartRate]), cursor: 1)
        sink.close()
        #expect(try ids(directory + "/heartRate.ndjson") == [SinkFixtures.heartRate.id])
    }
}
