import HealthRouterCore
import TestSupport
import Foundation
import Testing

/// A command's result that cannot be written to standard output (a full disk, a descriptor not
/// open for writing, a reader gone) fails the command with 73 and says why and what to do: `status`,
/// `types` and `check` exited 0 into /dev/full, and `dump` told to free space whatever failed.
@Suite struct StandardOutputTests {
    @Test func statusTypesAndCheckFailOnAFullDisk() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
            """, in: directory)
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        _ = try Journal(stateDirectory: directory + "/state")
        for command in ["status", "types", "check"] {
            let full = try CommandRunner.run([command, "--config", config], in: directory, shellSetup: "exec >/dev/full")
            #expect(full.status == 73, "\(command): \(full.stderr)")
            #expect(full.stderr == "healthrouter: cannot write to standard output: No space left on device\n"
                        + "  hint: free space there, or redirect it elsewhere\n", "\(command): \(full.stderr)")
            #expect(try CommandRunner.exitCodesInHelp(command).contains(73), "\(command)")
        }
        let json = try CommandRunner.run(["types", "--log-format", "json"], in: directory, shellSetup: "exec >/dev/full")
        let last = try #require(json.stderr.split(separator: "\n").last.map(String.init), "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        #expect(object?["exit_code"] as? Int == 73, "\(json.stderr)")
    }

    @Test func aDumpSaysWhyItsOutputCannotBeWritten() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 50, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
            """, in: directory)
        #expect(try CommandRunner.run(["import", "export.xml", "--config", config, "-q"], in: directory).status == 0)
        // Standard output opened to be read.
        let readOnly = try CommandRunner.run(["dump", "--config", config], in: directory, shellSetup: "exec 1</dev/null")
        #expect(readOnly.status == 73, "\(readOnly.stderr)")
        #expect(readOnly.stderr == "healthrouter: cannot write the dump to standard output: Bad file descriptor\n"
                    + "  hint: it is not open for writing (opened to be read, or closed): redirect it to a file or a pipe, "
                    + "or name another file with --output\n", "\(readOnly.stderr)")
        // A pipe whose reader is gone, SIGPIPE ignored (as a supervisor may leave it).
        let gone = try CommandRunner.run(["dump", "--config", config], in: directory, shellSetup: "trap '' PIPE; exec > >(exec true); sleep 0.3")
        #expect(gone.status == 73, "\(gone.stderr)")
        #expect(gone.stderr.contains("cannot write the dump to standard output: Broken pipe\n  hint: what read it stopped reading "
                                     + "before the end (a pipe into head)"), "\(gone.stderr)")
        // A full disk, as before.
        let full = try CommandRunner.run(["dump", "--config", config], in: directory, shellSetup: "exec >/dev/full")
        #expect(full.stderr.hasSuffix("  hint: free space there, or name another file with --output\n"), "\(full.stderr)")
    }
}
