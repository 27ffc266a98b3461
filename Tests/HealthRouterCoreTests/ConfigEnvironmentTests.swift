import Testing
@testable import HealthRouterCore

@Suite struct ConfigEnvironmentTests {
    private func substitute(_ yaml: String, _ environment: [String: String]) throws(ConfigError) -> ConfigNode {
        try EnvironmentSubstitution.apply(to: YAMLParser.parse(Array(yaml.utf8), file: "env.yaml"),
                                          environment: environment, path: "")
    }

    @Test func setVariableIsSubstituted() throws {
        let node = try substitute("sinks:\n  tsdb:\n    url: \"postgres://${USER}:${PASS}@db/x\"\n",
                                  ["USER": "alice", "PASS": "s$cret"])
        let url = node["sinks"]?["tsdb"]?["url"]
        #expect(url?.scalar == "postgres://alice:s$cret@db/x")
        #expect(url?.template == "postgres://${USER}:${PASS}@db/x")
        #expect(url?.kindDescription == "the value of \"postgres://${USER}:${PASS}@db/x\"")
    }

    @Test func unsetVariableIsAnErrorNamingVariableFileLineAndPath() {
        let error = #expect(throws: ConfigError.self) {
            try substitute("sources:\n  phone:\n    users:\n      alice: { token: \"${ALICE_TOKEN}\" }\n", [:])
        }
        #expect(error?.file == "env.yaml")
        #expect(error?.line == 4)
        #expect(error?.path == "sources.phone.users.alice.token")
        #expect(error?.message == "environment variable 'ALICE_TOKEN' is not set")
        #expect(error?.description.contains("env.yaml:4:") == true)
    }

    @Test func defaultIsUsedWhenUnsetOrEmpty() throws {
        let yaml = "a: ${PORT:-8787}\nb: x${EMPTY:-y}z\nc: ${SET:-no}\n"
        let node = try substitute(yaml, ["EMPTY": "", "SET": "yes"])
        #expect(node["a"]?.scalar == "8787")
        #expect(node["b"]?.scalar == "xyz")
        #expect(node["c"]?.scalar == "yes")
    }

    @Test func setButEmptyWithoutDefaultIsEmpty() throws {
        #expect(try substitute("a: \"${EMPTY}\"\n", ["EMPTY": ""])["a"]?.scalar == "")
    }

    @Test func escapesAndLoneDollarsAreLiteral() throws {
        let node = try substitute("a: \"$${HOME} costs $5 $\"\nb: plain\n", ["HOME": "/root"])
        #expect(node["a"]?.scalar == "${HOME} costs $5 $")
        #expect(node["b"]?.template == nil)
    }

    @Test func keysAreNotSubstituted() throws {
        let node = try substitute("\"${KEY}\": 1\n", ["KEY": "x"])
        #expect(node.entries?.first?.key == "${KEY}")
    }

    @Test func sequencesArePathed() {
        let error = #expect(throws: ConfigError.self) { try substitute("routes:\n  - to: [a, \"${SINK}\"]\n", [:]) }
        #expect(error?.path == "routes[0].to[1]")
    }

    @Test func malformedReferences() {
        #expect(throws: ConfigError.self) { try substitute("a: ${UNCLOSED\n", [:]) }
        #expect(throws: ConfigError.self) { try substitute("a: ${1BAD}\n", [:]) }
        #expect(throws: ConfigError.self) { try substitute("a: ${}\n", [:]) }
    }
}
