import Foundation
import Testing
import TestSupport

/// `healthrouter run` with its state directory and a sink's folder on small disks of their own
/// (tmpfs mounts in a mount namespace), filled up and freed while it runs.
@Suite("run on a full disk")
struct FullDiskTests {
    static let batch = (0..<20).map {
        #"{"uuid":"FULL-\#($0)","type":"heartRate","start":"2026-07-06T08:00:\#(String(format: "%02d", $0))Z","#
            + #""end":"2026-07-06T08:00:\#(String(format: "%02d", $0))Z","value":60,"source":"W"}"#
    }.joined(separator: ",")

    /// The sink `lake`'s entry in the admin listener's `/status`.
    static func lake(_ daemon: DaemonProcess) -> [String: Any]? {
        let status = daemon.adminClient.get("/status")
        guard status.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(status.body.utf8)) as? [String: Any],
              let sinks = object["sinks"] as? [[String: Any]] else { return nil }
        return sinks.first { $0["name"] as? String == "lake" }
    }

    /// A daemon (the sqlite sink `local`; the ndjson sink `lake` in `disk/lake`; an admin listener)
    /// started in a mount namespace of its own, with a tmpfs of `options` (and mode 700: a
    /// world-writable folder is refused) on each of `mounts`, folders of its directory; with the
    /// path its directory is seen at from outside the namespace (`/proc/<pid>/root/…`), once
    /// `/status` lists the lake.
    static func startDaemon(mounts: [(folder: String, options: String)]) throws -> (daemon: DaemonProcess, seen: String) {
        let directory = TestScratch.path + "daemon-\(UUID().uuidString)"
        for folder in ["disk"] + mounts.map(\.folder) {
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        let daemon = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory, more: """
              lake:
                type: ndjson
                directory: \(directory)/disk/lake
            """), admin: true)
        let mounted = mounts.map { "mount -t tmpfs -o \($0.options),mode=700 tmpfs \(directory)/\($0.folder) && " }.joined()
        daemon.shellSetup = "exec /usr/bin/unshare -rm /bin/bash -c '\(mounted)exec \"$0\" run --config \"$1\"' \"$0\" \"$1\""
        try daemon.start()
        let seen = "/proc/\(try #require(daemon.process?.processIdentifier))/root" + directory
        #expect(eventually { Self.lake(daemon) != nil })
        return (daemon, seen)
    }

    /// A sink that wrote its entries while the state directory's disk was full could not record
    /// its cursor in the journal; once space is freed the cursor is recorded, though nothing more
    /// comes to write, where `status` showed the sink behind (lag 20) until the next push.
    @Test(.enabled(if: MountNamespace.available, "needs unshare and user namespaces"))
    func aCursorTheFullJournalRefusedIsRecordedOnceThereIsRoom() throws {
        let (daemon, seen) = try Self.startDaemon(mounts: [("state", "size=2m"), ("disk", "size=1m")])
        defer { daemon.stop() }
        let state = seen + "/state", disk = seen + "/disk"

        // The lake's disk full: the push is journaled, the lake cannot write it and retries.
        MountNamespace.fill(disk)
        #expect(daemon.client.post("/ingest", "[\(Self.batch)]", token: DaemonProcess.token).status == 200)
        #expect(eventually { daemon.log.contains("write failed, retrying") && daemon.log.contains("sink=lake") }, "\(daemon.log)")
        // Then the state directory's disk full, and the lake's freed: the lake writes, and the
        // journal refuses its cursor.
        MountNamespace.fill(state)
        MountNamespace.free(disk)
        #expect(eventually(within: 10) {
            let lines = try? String(contentsOfFile: disk + "/lake/heartRate.ndjson", encoding: .utf8)
            return lines?.split(separator: "\n").count == 20
        }, "\(daemon.log)")
        usleep(1_000_000)
        try #require(Self.lake(daemon)?["lag"] as? Int == 20, "\(daemon.log)")
        #expect(daemon.log.contains("cannot record sink progress in the journal"), "\(daemon.log)")
        #expect(daemon.log.contains("cursor 20 (20 rows written)"), "\(daemon.log)")

        // Room again: the cursor is recorded without another push.
        MountNamespace.free(state)
        #expect(eventually(within: 10) { Self.lake(daemon)?["lag"] as? Int == 0 }, "\(String(describing: Self.lake(daemon)))")
        let lake = try #require(Self.lake(daemon))
        #expect(lake["cursor"] as? Int == 20 && lake["written"] as? Int == 20, "\(lake)")
        #expect(lake["last_error"] == nil || lake["last_error"] is NSNull, "\(lake)")
        #expect(daemon.process?.isRunning == true)
    }

    /// The ndjson sink's folder on a disk with no room for another file (its inodes taken): the
    /// sink's warning says the disk is full and what to do, as the sqlite sink's does, where it
    /// gave the system's "No space left on device" alone; once there is room it catches up.
    @Test(.enabled(if: MountNamespace.available, "needs unshare and user namespaces"))
    func anNDJSONFolderOnAFullDiskSaysWhatToDo() throws {
        let (daemon, seen) = try Self.startDaemon(mounts: [("disk", "size=4m,nr_inodes=64")])
        defer { daemon.stop() }
        let disk = seen + "/disk"
        // Every inode taken: the lake's index takes writes, a new type's file cannot be made.
        var fillers = 0
        while FileManager.default.createFile(atPath: disk + "/inode-\(fillers)", contents: nil) { fillers += 1 }
        #expect(fillers > 0)
        #expect(daemon.client.post("/ingest", "[\(Self.batch)]", token: DaemonProcess.token).status == 200)
        #expect(eventually { daemon.log.contains("heartRate.ndjson: open failed: No space left on device (the disk holding the "
                                                 + "folder is full, or its quota: free some space; the sink retries)") },
                "\(daemon.log)")
        for index in 0..<fillers { unlink(disk + "/inode-\(index)") }
        #expect(eventually(within: 10) { Self.lake(daemon)?["lag"] as? Int == 0 }, "\(String(describing: Self.lake(daemon)))")
    }
}
