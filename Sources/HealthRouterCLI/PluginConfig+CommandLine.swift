import HealthRouterCore

extension PluginConfig {
    /// A source named on the command line rather than in the config (`import PATH`).
    static func commandLine(name: String, type: String, path: String) -> PluginConfig {
        let here = ConfigLocation(file: "command line", line: 1, column: 1)
        var plugin = PluginConfig(kind: .source, name: name, type: type, options: .emptyMapping(at: here),
                                  location: here, typeLocation: here)
        plugin.options = plugin.options.setting(key: "path", to: path)
        return plugin
    }
}

extension ConfigNode {
    /// This mapping with `key` set to the scalar `value` (replaced when present, appended otherwise).
    func setting(key: String, to value: String) -> ConfigNode {
        let here = ConfigLocation(file: "command line", line: 1, column: 1)
        var entries = self.entries ?? []
        let node = ConfigNode(.scalar(value), location: here)
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index].value = node
        } else {
            entries.append(Entry(key: key, keyLocation: here, value: node))
        }
        return ConfigNode(.mapping(entries), location: location)
    }
}
