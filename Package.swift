// swift-tools-version:6.0
// healthrouter: routes personal health data from where it is produced to stores its owner controls.
import PackageDescription

/// Every plugin folder carries a README and an example config next to its code.
let pluginDocs = ["README.md", "example.yaml"]

let package = Package(
    name: "healthrouter",
    products: [
        .executable(name: "healthrouter", targets: ["healthrouter"]),
    ],
    targets: [
        // Debian C libraries, through pkg-config.
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMHD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The core: canonical sample, type registry, config, journal, routing, sink workers.
        .target(name: "HealthRouterCore", dependencies: ["CSQLite3", "CYAML", "CCrypto"]),
        // The libpq client shared by the Postgres sinks: connection, COPY, staged upserts.
        .target(name: "PostgresClient", dependencies: ["HealthRouterCore", "CLibPQ"]),

        // Plugins: one folder and module per source or sink.
        // Release builds skip the runtime exclusivity checks in the parser's per-attribute hot path
        // (its interners are structs inside a class): ~5 % of the parse thread went to them.
        // Debug builds, which the tests run, keep them.
        .target(name: "AppleHealthExportSource", dependencies: ["HealthRouterCore", "CLibXML2", "CArchive"],
                path: "Plugins/AppleHealthExportSource", exclude: pluginDocs,
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .target(name: "SQLiteSink", dependencies: ["HealthRouterCore", "CSQLite3"],
                path: "Plugins/SQLiteSink", exclude: pluginDocs),
        .target(name: "NDJSONSink", dependencies: ["HealthRouterCore"],
                path: "Plugins/NDJSONSink", exclude: pluginDocs),
        .target(name: "TimescaleDBSink", dependencies: ["HealthRouterCore", "PostgresClient"],
                path: "Plugins/TimescaleDBSink", exclude: pluginDocs),
        .target(name: "PostgresSink", dependencies: ["HealthRouterCore", "PostgresClient"],
                path: "Plugins/PostgresSink", exclude: pluginDocs),
        .target(name: "ReplaySource", dependencies: ["HealthRouterCore"], path: "Plugins/ReplaySource", exclude: pluginDocs),
        .target(name: "HTTPPushSource", dependencies: ["HealthRouterCore", "CMHD", "CZlib", "CCrypto"],
                path: "Plugins/HTTPPushSource", exclude: pluginDocs),
        // Reads Health Auto Export's JSON files with the `/hae` parser (HTTPPushSource's
        // `HealthAutoExportDocument`), so that a file and a push of the same data are one sample.
        .target(name: "HealthAutoExportFileSource", dependencies: ["HealthRouterCore", "HTTPPushSource"],
                path: "Plugins/HealthAutoExportFileSource", exclude: pluginDocs),
        .target(name: "HTTPSink", dependencies: ["HealthRouterCore", "CCurl", "CZlib"],
                path: "Plugins/HTTPSink", exclude: pluginDocs),

        // The command line: commands and the one explicit list of plugins.
        .target(name: "HealthRouterCLI", dependencies: [
            "HealthRouterCore", "AppleHealthExportSource", "SQLiteSink", "NDJSONSink",
            "TimescaleDBSink", "PostgresSink",
            "ReplaySource", "HealthAutoExportFileSource",
            "HTTPPushSource", "HTTPSink",
        ]),
        .executableTarget(name: "healthrouter", dependencies: ["HealthRouterCLI"]),
        // scripts/bench-postgres.sh: rows/s through the Postgres sinks.
        .executableTarget(name: "postgres-bench", dependencies: ["TimescaleDBSink", "PostgresSink", "PostgresClient", "HealthRouterCore"]),

        // Fixtures and helpers that several test targets share.
        .target(name: "TestSupport", dependencies: ["HealthRouterCore"], path: "Tests/TestSupport"),
        .testTarget(name: "HealthRouterCoreTests", dependencies: ["HealthRouterCore", "TestSupport"]),
        .testTarget(name: "AppleHealthExportSourceTests", dependencies: ["AppleHealthExportSource", "HealthRouterCore", "TestSupport"]),
        .testTarget(name: "SinkTests", dependencies: ["SQLiteSink", "NDJSONSink", "HealthRouterCore", "CSQLite3", "TestSupport"]),
        .testTarget(name: "PostgresSinkTests", dependencies: [
            "TimescaleDBSink", "PostgresSink", "PostgresClient", "SQLiteSink", "NDJSONSink", "HealthRouterCore", "CSQLite3",
            "TestSupport",
        ]),
        .testTarget(name: "MigrationTests", dependencies: ["ReplaySource", "SQLiteSink", "NDJSONSink", "HealthRouterCLI", "HealthRouterCore", "PostgresClient", "CSQLite3", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["HealthRouterCLI", "HealthRouterCore", "AppleHealthExportSource", "CSQLite3",
                                                          "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTPPushSource", "HTTPSink", "HealthAutoExportFileSource", "HealthRouterCore", "CCurl", "CZlib", "CSQLite3",
                                                  "TestSupport"]),
    ]
)
