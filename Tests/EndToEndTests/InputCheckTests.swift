import TestSupport
import Foundation
import Testing
@testable import HealthRouterCLI

/// `~` in a config is the home directory of the command's environment.
@Suite struct InputCheckTests {
    @Test func tildeInTheConfigIsTheHomeOfTheCommandsEnvironment() throws {
        let home = makeTemporaryDirectory("home")
        try CommandRunner.generateExport(records: 100, to: home + "/export.xml", zip: false, quirks: false)
        let config = home + "/hr.yaml"
        try """
        state_directory: ~/state
        sources:
          history: { type: apple_health_export, path: ~/export.xml }
        sinks:
          local: { type: sqlite, path: ~/store/health.sqlite }
          lake: { type: ndjson, directory: ~/lake }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let literalTilde = FileManager.default.currentDirectoryPath + "/~"
        let tildeExistedBefore = FileManager.default.fileExists(atPath: literalTilde)

        // In process: the environment passed in, not this process's HOME, decides.
        let code = HealthRouterCommand.main(["import", "--config", config, "-q"], environment: ["HOME": home])
        #expect(code == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/state/journal.sqlite"))
        #expect(FileManager.default.fileExists(atPath: home + "/store/health.sqlite"))
        let lake = try FileManager.default.contentsOfDirectory(atPath: home + "/lake")
        #expect(lake.contains { $0.hasSuffix(".ndjson") })
        #expect(FileManager.default.fileExists(atPath: literalTilde) == tildeExistedBefore)
    }
}
