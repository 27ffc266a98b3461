import Foundation
import Testing
@testable import HealthRouterCore

/// Every YAML file under config/ must be a valid config without warnings.
@Suite struct ConfigFilesTests {
    /// `<package>/config`, found from this file's path.
    static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config")

    static var yamlFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: configDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }

    @Test func configDirectoryHasExamples() {
        #expect(Self.yamlFiles.contains("healthrouter.reference.yaml"))
        #expect(Self.yamlFiles.count >= 3)
    }

    @Test(arguments: yamlFiles)
    func parses(_ name: String) throws {
        let path = Self.configDirectory.appendingPathComponent(name).path
        let config: HealthRouterConfig
        do {
            config = try HealthRouterConfig.load(path: path, environment: ["HOME": "/home/test"])
        } catch {
            Issue.record("\(error)")
            return
        }
        #expect(config.warnings.isEmpty, "\(config.warnings.map(\.description))")
        #expect(!config.sinks.isEmpty)
        try config.checkPluginTypes(sources: ["apple_health_export"], sinks: ["sqlite", "ndjson"])
    }

    /// config/embedded-default.yaml shows exactly what `embeddedDefault()` is.
    @Test func embeddedDefaultFileMatchesTheCode() throws {
        let path = Self.configDirectory.appendingPathComponent("embedded-default.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == HealthRouterConfig.embeddedDefaultYAML())
    }
}
