import Foundation
import Testing
import HealthRouterCore
import AppleHealthExportSource

/// The plugin's configuration as the config file gives it.
@Suite struct ConfigurationTests {
    @Test func exampleConfigDecodes() throws {
        let example = Fixtures.repositoryRoot + "/Plugins/AppleHealthExportSource/example.yaml"
        let config = try HealthRouterConfig.load(path: example, environment: [:])
        let plugin = try #require(config.source(named: "history"))
        #expect(plugin.type == "apple_health_export")
        let configuration = try plugin.decodeOptions(AppleHealthExportSource.Configuration.self)
        #expect(configuration.path == "~/Downloads/export.zip")
        #expect(configuration.userId == "3b241101-e2bb-4255-8caf-4136c566a962")
        let source = AppleHealthExportSource(
            configuration: configuration,
            context: PluginContext(name: "history", stateDirectory: NSTemporaryDirectory(), logger: Logger(),
                                   homeDirectory: "/home/someone"))
        #expect(source.resolvedPath == "/home/someone/Downloads/export.zip")
    }

    @Test func unknownKeysAreRejected() throws {
        let yaml = """
        sources:
          history:
            type: apple_health_export
            pth: export.zip
        """
        let config = try HealthRouterConfig.parse(yaml: yaml, environment: [:])
        let plugin = try #require(config.source(named: "history"))
        #expect(throws: ConfigError.self) { try plugin.decodeOptions(AppleHealthExportSource.Configuration.self) }
    }
}
