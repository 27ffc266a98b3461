import HealthRouterCore
import TestSupport
import Foundation
import Testing
@testable import HealthRouterCLI

/// `check`, `types` and config errors through the command line.
@Suite struct ConfigCommandTests {
    /// Words a command does not take are pointed out (64), not ignored; so is a date range no
    /// sample can fall in.
    @Test func strayArgumentsAndAnEmptyDateRangeAreUsageErrors() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("state_directory: \(directory)/state\n", in: directory)
        for command in ["status", "check", "types", "run"] {
            #expect(HealthRouterCommand.main([command, "extra-arg", "--config", config], environment: [:]) == 64, "\(command)")
        }
        #expect(HealthRouterCommand.main(["dump", "--since", "2024-01-01", "--until", "2020-01-01", "--config", config],
                                         environment: [:]) == 64)
        // Another command's option is said to be one, not taken for a typo of this command's.
        let since = try CommandRunner.run(["import", "--since", "2024-01-01", "x.ndjson", "--config", config], in: directory)
        #expect(since.status == 64 && since.stderr.contains("unknown option --since: import does not take it; backfill, migrate "
                                                            + "and dump do"), "\(since.stderr)")
        let connect = try CommandRunner.run(["run", "--connect", "--config", config], in: directory)
        #expect(connect.status == 64 && connect.stderr.contains("unknown option --connect: run does not take it; check does"),
                "\(connect.stderr)")
        let typo = try CommandRunner.run(["dump", "--type", "heartRate", "--config", config], in: directory)
        #expect(typo.status == 64 && typo.stderr.contains("unknown option --type (did you mean --types?)"), "\(typo.stderr)")
    }

    /// `status` (and dump, backfill, migrate) start no source, so a daemon config's push token
    /// need not be in their environment; `check` and `run` still say it is not set.
    @Test func commandsThatStartNoSourceDoNotNeedTheSourcesVariables() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sources:
              phone: { type: http_push, listen: "127.0.0.1:0", users: { alice: { token: "${HR_TEST_UNSET_TOKEN}" } } }
            sinks:
              local: { type: sqlite, path: "${HR_TEST_UNSET_DATA}/health.sqlite" }

            """, in: directory)
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        _ = try Journal(stateDirectory: directory + "/state")
        // Nor a sink's: status opens none (a command that opens the sink still needs it).
        #expect(HealthRouterCommand.main(["status", "--config", config], environment: [:]) == 0)
        #expect(HealthRouterCommand.main(["backfill", "local", "--config", config], environment: [:]) == 78)
        let environment = ["HR_TEST_UNSET_DATA": directory]
        #expect(HealthRouterCommand.main(["status", "--config", config], environment: environment) == 0)
        #expect(HealthRouterCommand.main(["check", "--config", config], environment: environment) == 78)
        #expect(HealthRouterCommand.main(["check", "--config", config],
                                         environment: environment.merging(["HR_TEST_UNSET_TOKEN": "t0ken"]) { a, _ in a }) == 0)
    }

    /// An import starts no push listener and the daemon reads no file source: an import need not
    /// know the daemon's push tokens, nor the daemon a replay folder's variable (both said they
    /// were not set and stopped). A source the command does start still needs its variables, as
    /// does one whose type is itself a variable.
    @Test func aCommandNeedsOnlyTheVariablesOfTheSourcesItStarts() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sources:
              phone: { type: http_push, listen: "127.0.0.1:0", users: { alice: { token: "${HR_TEST_UNSET_TOKEN}" } } }
              archive: { type: replay, path: "${HR_TEST_UNSET_PULSO}/data" }
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """, in: directory)
        let export = CommandRunner.repository + "/samples/export.zip"
        let pulso = ["HR_TEST_UNSET_PULSO": directory + "/pulso"]
        let imported = try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory, environment: pulso)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try SQLiteDatabase(path: directory + "/health.sqlite").scalarInt("SELECT count(*) FROM samples") ?? 0 > 0)
        // The replay source is one an import reads (its options apply to a path of its kind).
        let withoutPulso = try CommandRunner.run(["import", export, "--config", config, "--quiet"], in: directory)
        #expect(withoutPulso.status == 78, "\(withoutPulso.stderr)")
        #expect(withoutPulso.stderr.contains("sources.archive.path: environment variable 'HR_TEST_UNSET_PULSO' is not set"),
                "\(withoutPulso.stderr)")
        // The daemon's plan: its push source needs the token, the replay source nothing.
        let arguments = try CommandLineArguments.parse(["--config", config], command: "run")
        let plan = try RunCommand.Plan(arguments: arguments, environment: ["HR_TEST_UNSET_TOKEN": "t0ken-for-alice"],
                                       handover: ListenerHandover())
        #expect(plan.services.map(\.name) == ["phone"])
        let refused = #expect(throws: ConfigError.self) {
            _ = try RunCommand.Plan(arguments: arguments, environment: pulso, handover: ListenerHandover())
        }
        #expect(refused?.description.contains("sources.phone.users.alice.token: environment variable 'HR_TEST_UNSET_TOKEN' is not set")
                == true, "\(String(describing: refused))")
        // A type given by a variable counts as started.
        let typed = directory + "/typed.yaml"
        try """
            state_directory: \(directory)/state
            sources:
              phone: { type: "${HR_TEST_SOURCE_TYPE:-http_push}", listen: "127.0.0.1:0", users: { alice: { token: "${HR_TEST_UNSET_TOKEN}" } } }
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """.write(toFile: typed, atomically: true, encoding: .utf8)
        let typedImport = try CommandRunner.run(["import", export, "--config", typed, "--quiet"], in: directory)
        #expect(typedImport.status == 78 && typedImport.stderr.contains("'HR_TEST_UNSET_TOKEN' is not set"), "\(typedImport.stderr)")
    }

    @Test func everyExampleConfigChecks() throws {
        let folder = CommandRunner.repository + "/config"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }
        #expect(!files.isEmpty)
        for file in files {
            let code = HealthRouterCommand.main(["check", "--config", folder + "/" + file], environment: [:])
            #expect(code == 0, "\(file) does not check")
        }
        // Every plugin's example config checks too.
        let plugins = CommandRunner.repository + "/Plugins"
        for plugin in try FileManager.default.contentsOfDirectory(atPath: plugins) {
            let example = plugins + "/" + plugin + "/example.yaml"
            guard FileManager.default.fileExists(atPath: example) else { continue }
            let secrets = ["ALICE_TOKEN": "a1b2c3d4e5f6a7b8c9d0", "BOB_TOKEN": "b1c2d3e4f5a6b7c8d9e0", "MIRROR_TOKEN": "m1n2o3p4"]
            #expect(HealthRouterCommand.main(["check", "--config", example], environment: secrets) == 0, "\(example) does not check")
        }
        // An example's placeholder token is refused: anybody could push with it.
        let placeholder = try check("""
        sources:
          phone: { type: http_push, listen: "127.0.0.1:8787", users: { alice: { token: "change-me-alice" } } }
        sinks:
          local: { type: sqlite, path: ./h.sqlite }
        """)
        #expect(placeholder.status == 78)
        #expect(placeholder.stderr.contains("sources.phone.users.alice.token: the token of user 'alice' is an example's placeholder"),
                "\(placeholder.stderr)")
        // A short token on a listener other machines reach is taken, with a warning: it could be guessed.
        let short = try check("""
        sources:
          phone: { type: http_push, listen: "0.0.0.0:8787", users: { alice: { token: "s3cr3t" }, bob: { token: "0123456789abcdef" } } }
        sinks:
          local: { type: sqlite, path: ./h.sqlite }
        """)
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stderr.contains("warning: the token of user 'alice' is short (6 characters) for a listener other machines "
                                      + "reach: it could be guessed plugin=phone key=sources.phone.users.alice.token hint=use a long random one"),
                "\(short.stderr)")
        #expect(!short.stderr.contains("user 'bob'"), "\(short.stderr)")
        let local = try check("""
        sources:
          phone: { type: http_push, listen: "127.0.0.1:8787", users: { alice: { token: "s3cr3t" } } }
        sinks:
          local: { type: sqlite, path: ./h.sqlite }
        """)
        #expect(local.status == 0 && !local.stderr.contains("short"), "\(local.stderr)")
    }

    /// Every config a README shows as a ```yaml block checks, as printed: a reader copies them.
    /// A block that is part of a config (a source's `users:`, a sink's keys) is checked inside the
    /// config the README puts it in; a new block is checked unless it is listed here.
    @Test func everyConfigAReadmeShowsChecks() throws {
        let readmes = ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: CommandRunner.repository + "/Plugins"))
            .sorted().map { "Plugins/\($0)/README.md" }
            .filter { FileManager.default.fileExists(atPath: CommandRunner.repository + "/" + $0) }
        // The first line of a block that is a part, and the config it stands in.
        let parts: [String: (String) -> String] = [
            "users:": { "sources:\n  phone:\n    type: http_push\n    listen: 127.0.0.1:8787\n" + Self.indented($0, by: 4) },
            "    summarize_after: 30d": { "sinks:\n  supabase:\n    type: postgres\n    url: \"${SUPABASE_DB_URL}\"\n    user_id: me\n" + $0 },
        ]
        let environment = ["ALICE_TOKEN": "a1b2c3d4e5f6a7b8c9d0e1f2", "MIRROR_TOKEN": "m1n2o3p4q5r6s7t8", "TIMESCALE_URL": "postgres://me@127.0.0.1/health",
                           "SUPABASE_DB_URL": "postgres://me@127.0.0.1/health", "PG_URL": "postgres://me@127.0.0.1/health",
                           "HEALTHKIT_USER_ID": "3b241101-e2bb-4255-8caf-4136c566a962"]
        let directory = makeTemporaryDirectory()
        var checked = 0, partsChecked = 0
        for readme in readmes {
            let text = try String(contentsOfFile: CommandRunner.repository + "/" + readme, encoding: .utf8)
            for (index, block) in text.components(separatedBy: "```yaml\n").dropFirst().enumerated() {
                let body = block.components(separatedBy: "```").first ?? ""
                let firstLine = String(body.prefix { $0 != "\n" })
                var config = body
                if let complete = parts[firstLine] {
                    config = complete(body)
                    partsChecked += 1
                }
                let file = directory + "/block.yaml"
                try config.write(toFile: file, atomically: true, encoding: .utf8)
                let result = try CommandRunner.run(["check", "--config", file], in: directory, environment: environment)
                #expect(result.status == 0, "\(readme), yaml block \(index + 1) does not check: \(result.stderr)")
                checked += 1
            }
        }
        #expect(checked >= 10 && partsChecked == parts.count, "\(checked) blocks, \(partsChecked) parts")
    }

    private static func indented(_ text: String, by spaces: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : String(repeating: " ", count: spaces) + $0 }.joined(separator: "\n")
    }

    /// A Postgres sink's schema PostgreSQL would refuse (`pg_…`, kept for its own) or cut (over 63
    /// bytes) is a config error at its line: the sink retried CREATE SCHEMA's refusal for ever.
    @Test func aSchemaPostgreSQLWouldRefuseIsAConfigError() throws {
        for type in ["postgres", "timescaledb"] {
            for (schema, problem) in [("pg_health", "'pg_health' starts with pg_, which PostgreSQL keeps for its own schemas"),
                                      (String(repeating: "s", count: 64), "is 64 bytes long: PostgreSQL names hold at most 63")] {
                let result = try check("""
                sinks:
                  db: { type: \(type), url: "postgres://me@127.0.0.1/health", schema: \(schema), user_id: me }
                """)
                #expect(result.status == 78, "\(type) \(schema): \(result.stderr)")
                #expect(result.stderr.contains("sinks.db.schema: \(problem)"), "\(result.stderr)")
            }
            // PostgreSQL keeps pg_ in lower case only: PG_Health, quoted, is a schema like any other.
            let upper = try check("""
            sinks:
              db: { type: \(type), url: "postgres://me@127.0.0.1/health", schema: PG_Health, user_id: me }
            """)
            #expect(upper.status == 0, "\(upper.stderr)")
        }
    }

    /// A TLS key every local user may read draws a warning from `check` (and at the start of `run`),
    /// as ssh refuses such a key: any of them could pose as the server. One its owner alone, or a
    /// group, may read does not.
    @Test func aTLSKeyEveryUserMayReadIsWarnedAbout() throws {
        let directory = makeTemporaryDirectory()
        let key = directory + "/server.key"
        try "-----BEGIN PRIVATE KEY-----\n".write(toFile: key, atomically: false, encoding: .utf8)
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: directory + "/server.pem", atomically: false, encoding: .utf8)
        let config = try writeConfig("""
            sources:
              phone: { type: http_push, listen: "0.0.0.0:8787", users: { alice: { token: "0123456789abcdef0123" } },
                       tls_certificate: \(directory)/server.pem, tls_key: \(key) }
            sinks:
              local: { type: sqlite, path: ./h.sqlite }
            """, in: directory)
        #expect(chmod(key, 0o644) == 0)
        let open = try CommandRunner.run(["check", "--config", config], in: directory)
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stderr.contains("warning: the TLS key \(key) is readable by every user of this machine (mode 644): any of "
                                     + "them could pose as this server plugin=phone key=sources.phone.tls_key hint=chmod 600 \(key)"),
                "\(open.stderr)")
        try expectNoWarningOnceOwnedOrGroups(key, checking: config, in: directory, about: "TLS key")
    }

    /// A config file every local user may read that holds secrets written in it (a push token, a
    /// sink's url password or token) draws a warning from `check` (and at the start of `run`)
    /// naming the file, its mode and the keys, never the values. One its owner alone, or a group,
    /// may read does not; nor one whose secrets are `${NAME}` references.
    @Test func aConfigFileEveryUserMayReadWithSecretsInItIsWarnedAbout() throws {
        let directory = makeTemporaryDirectory()
        /// A push token, a database password and an http sink's token, as written in the file.
        func config(token: String, password: String, mirrorToken: String) -> String {
            """
            sources:
              phone: { type: http_push, listen: "127.0.0.1:8787", users: { bob: { token: "\(token)" } } }
            sinks:
              db: { type: postgres, url: "postgres://hr:\(password)@127.0.0.1/health", user_id: bob }
              mirror: { type: http, url: "https://mirror.example", token: "\(mirrorToken)" }
            """
        }
        let written = try writeConfig(config(token: "bob-token-0123456789", password: "Pg-Secret-1",
                                             mirrorToken: "mirror-token-0123456789"), in: directory)
        #expect(chmod(written, 0o644) == 0)
        let open = try CommandRunner.run(["check", "--config", written], in: directory)
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stderr.contains("warning: the config file \(written) is readable by every user of this machine (mode 644) "
                                     + "and holds secrets written in it: any of them could read them keys=sources.phone.users.bob.token,"
                                     + "sinks.db.url,sinks.mirror.token hint=chmod 600 \(written) (or 640 with a group the user running "
                                     + "healthrouter is in), or write each as ${NAME} and put the values in the environment (a systemd "
                                     + "EnvironmentFile= of mode 600)"), "\(open.stderr)")
        for secret in ["bob-token-0123456789", "Pg-Secret-1", "mirror-token-0123456789"] {
            #expect(!open.stderr.contains(secret) && !open.stdout.contains(secret), "\(open.stderr)")
        }
        try expectNoWarningOnceOwnedOrGroups(written, checking: written, in: directory, about: "config file")
        // The same secrets from the environment: nothing in the file to read.
        let referenced = try writeConfig(config(token: "${BOB_TOKEN}", password: "${PGPASSWORD}", mirrorToken: "${MIRROR_TOKEN}"),
                                         in: directory)
        #expect(chmod(referenced, 0o644) == 0)
        let fromEnvironment = try CommandRunner.run(["check", "--config", referenced], in: directory, environment: [
            "BOB_TOKEN": "bob-token-0123456789", "PGPASSWORD": "Pg-Secret-1", "MIRROR_TOKEN": "mirror-token-0123456789",
        ])
        #expect(fromEnvironment.status == 0 && !fromEnvironment.stderr.contains("config file"), "\(fromEnvironment.stderr)")
    }

    /// `check --config config` with `file` made readable by its owner alone (0600), then by its group
    /// too (0640): each passes without a warning that mentions `subject` (the owner's choice, as ssh
    /// takes it).
    func expectNoWarningOnceOwnedOrGroups(_ file: String, checking config: String, in directory: String,
                                          about subject: String) throws {
        for mode: mode_t in [0o600, 0o640] {
            #expect(chmod(file, mode) == 0)
            let kept = try CommandRunner.run(["check", "--config", config], in: directory)
            #expect(kept.status == 0 && !kept.stderr.contains(subject), "\(String(mode, radix: 8)): \(kept.stderr)")
        }
    }

    /// `healthrouter check` on `yaml`, written as hr.yaml in a fresh directory.
    /// `@DIR@` in `yaml` stands for that directory, where check runs.
    func check(_ yaml: String) throws -> CommandRunner.Result {
        let directory = makeTemporaryDirectory()
        return try CommandRunner.run(["check", "--config", writeConfig(yaml.replacingOccurrences(of: "@DIR@", with: directory),
                                                                       in: directory)], in: directory)
    }

    /// Timeouts a store's library would take for "no limit", or its server refuse, are config
    /// errors that name the key: an http sink's `timeout: 0s` (libcurl waits for ever: an import
    /// hung on a server that never answers), a Postgres `statement_timeout` under a second (sent
    /// as 0, no limit) or past 24 days (every connection refused, retried as if the server were down).
    @Test func timeoutsThatMeanNoLimitOrCannotBeSentAreConfigErrors() throws {
        let cases: [(sink: String, key: String, expected: String)] = [
            ("{ type: http, url: 'http://127.0.0.1:9', timeout: 0s }", "sinks.mirror.timeout", "timeout must be at least 1s"),
            ("{ type: postgres, url: 'postgresql://localhost/health', user_id: 9f1c5a52-1d2b-4a55-9e0b-2d7f6c1a0001, statement_timeout: 500ms }", "sinks.mirror.statement_timeout",
             "statement_timeout must be from 1s to 24d"),
            ("{ type: timescaledb, url: 'postgresql://localhost/health', statement_timeout: 30d }", "sinks.mirror.statement_timeout",
             "statement_timeout must be from 1s to 24d"),
        ]
        for (sink, key, expected) in cases {
            let result = try check("state_directory: @DIR@/state\nsinks:\n  mirror: \(sink)\n")
            #expect(result.status == 78, "\(sink): \(result.stderr)")
            #expect(result.stderr.contains(key) && result.stderr.contains(expected), "\(sink): \(result.stderr)")
        }
        let fine = try check("state_directory: @DIR@/state\nsinks:\n  mirror: { type: postgres, url: 'postgresql://localhost/health', user_id: 9f1c5a52-1d2b-4a55-9e0b-2d7f6c1a0001, "
                                 + "statement_timeout: 24d }\n")
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// Two sinks on one store (`x.sqlite` and `./x.sqlite`, one ndjson folder) are a config error
    /// naming both: they shared one cursor row, each taking the other's for its own. A path with a
    /// NUL in it (cut short at it) is one too.
    @Test func twoSinksOnOneStoreAreRefused() throws {
        let file = try check("""
            state_directory: @DIR@/state
            sinks:
              a: { type: sqlite, path: x.sqlite }
              b: { type: sqlite, path: ./sub/../x.sqlite }
            """)
        #expect(file.status == 78, "\(file.stderr)")
        #expect(file.stderr.contains("sinks.b.path: ./sub/../x.sqlite is also the store of sink 'a': two sinks cannot share a file"),
                "\(file.stderr)")
        let folder = try check("""
            state_directory: @DIR@/state
            sinks:
              a: { type: ndjson, directory: lake }
              b: { type: ndjson, directory: lake/ }
            """)
        #expect(folder.status == 78 && folder.stderr.contains("two sinks cannot share a folder"), "\(folder.stderr)")
        let nul = try check("state_directory: @DIR@/state\nsinks:\n  a: { type: sqlite, path: \"x\\0y.sqlite\" }\n")
        #expect(nul.status == 78 && nul.stderr.contains("sinks.a.path: the path holds a NUL character"), "\(nul.stderr)")
        let apart = try check("state_directory: @DIR@/state\nsinks:\n  a: { type: sqlite, path: x.sqlite }\n  b: { type: sqlite, path: y.sqlite }\n")
        #expect(apart.status == 0, "\(apart.stderr)")
    }

    /// A route's type that names no known type is a warning (it routes that identifier alone):
    /// check says it is valid with a warning, not just "valid"; a sink no route names receives
    /// the deletions all the same, and check says so.
    @Test func checkCountsItsWarningsAndSaysDeletionsReachEverySink() throws {
        let result = try check("""
        sinks:
          local: { type: sqlite, path: ./h.sqlite }
          spare: { type: sqlite, path: ./spare.sqlite }
        routes:
          - types: [slep]
            to: [local]
        """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("did you mean 'sleep'?") || result.stderr.contains("did you mean 'sleep'?"))
        #expect(result.stdout.contains("1 route(s), 2 warning(s) above"), "\(result.stdout)")
        #expect(result.stdout.contains("sink local (sqlite) receives: slep; deletions"), "\(result.stdout)")
        #expect(result.stdout.contains("sink spare (sqlite) receives: no samples (no route names it); deletions"), "\(result.stdout)")
    }

    /// A command needs the variables of the sinks it opens only: `status` and a backfill into one
    /// store run without another sink's token or URL set (a mirror's, a Postgres store's); a
    /// migration into that sink says which variable is missing.
    @Test func aCommandNeedsOnlyTheVariablesOfTheSinksItOpens() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: ./state
            sinks:
              local: { type: sqlite, path: ./h.sqlite }
              mirror: { type: http, url: "http://127.0.0.1:9", token: "${HR_TEST_MIRROR_TOKEN}", batch_size: "${HR_TEST_MIRROR_BATCH}" }
              supa: { type: postgres, url: "${HR_TEST_SUPA_URL}", user_id: 3b241101-e2bb-4255-8caf-4136c566a962 }
            routes:
              - types: ["*"]
                to: [local]
            """, in: directory)
        let export = CommandRunner.repository + "/samples/export.zip"
        let backfill = try CommandRunner.run(["backfill", "local", "--from", export, "--config", config, "-q"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stdout)\(backfill.stderr)")
        for command in [["status"], ["dump", "--from", "local", "--output", "local.ndjson"]] {
            let result = try CommandRunner.run(command + ["--config", config], in: directory)
            #expect(result.status != 78 && !result.stderr.contains("is not set"), "\(command): \(result.stderr)")
        }
        let migrate = try CommandRunner.run(["migrate", "--from", "local", "--to", "supa", "--config", config], in: directory)
        #expect(migrate.status == 78)
        #expect(migrate.stderr.contains("sinks.supa.url: environment variable 'HR_TEST_SUPA_URL' is not set"), "\(migrate.stderr)")
    }

    @Test func aMisspeltKeyIsNamedWithItsPathAndTheRightKey() throws {
        let result = try check("""
        sinks:
          local:
            type: sqlite
            pth: x.sqlite
        """)
        #expect(result.status == 78)
        #expect(result.stderr.contains("sinks.local.pth"))
        #expect(result.stderr.contains("path"))
        #expect(result.stderr.contains("hr.yaml:4"))
        // A key far from the right one by its letters: an abbreviation is still named, and a
        // required key that is missing says which unknown key stands where it should.
        for (yaml, says) in [
            ("sinks:\n  lake:\n    type: ndjson\n    dir: ./nd\n", "sinks.lake.dir: unknown key\n  hint: did you mean 'directory'?"),
            ("state_dir: ./s\n", "state_dir: unknown key\n  hint: did you mean 'state_directory'?"),
            ("sinks:\n  local:\n    type: sqlite\n    file: ./x.sqlite\n",
             "sinks.local.path: missing required key\n  hint: add 'path:' to sinks.local (it has 'file', which is not a key here)"),
            ("sinks:\n  supa:\n    type: postgres\n    url: \"postgres://u@127.0.0.1/db?sslmod=disable\"\n    user_id: u\n",
             #"hr.yaml:4:10: sinks.supa.url: libpq cannot read this url: invalid URI query parameter: "sslmod" (did you mean 'sslmode'?)"#),
            ("sinks:\n  tsdb:\n    type: timescaledb\n    url: \"postgres://u:p@ss@127.0.0.1/db\"\n",
             "sinks.tsdb.url: the url's user or password holds '@': percent-encode it as %40"),
            ("sinks:\n  supa:\n    type: postgres\n    url: \"postgres://u:s3cr3t/p@ss@127.0.0.1:60000/c1\"\n    user_id: u\n",
             "sinks.supa.url: the url's user or password holds '/' or '?', where libpq ends the host: percent-encode them as %2F"),
            // A url libpq cannot read at all: what one looks like.
            ("sinks:\n  tsdb:\n    type: timescaledb\n    url: \"tsdb.example.org\"\n",
             #"sinks.tsdb.url: libpq cannot read this url: missing "=" after "tsdb.example.org" in connection info string; "#
                + "write it as postgres://user:password@host:5432/dbname, or as key=value words"),
            // A listen address says which part is wrong: the port, or a host that is no address.
            ("sources:\n  p:\n    type: http_push\n    listen: 127.0.0.1:99999\n",
             "sources.p.listen: listen '127.0.0.1:99999': the port must be a number from 1 to 65535, not '99999'\n"
                + "  hint: write it as 127.0.0.1:8787"),
            ("sources:\n  p:\n    type: http_push\n    listen: health.local:8787\n",
             "sources.p.listen: listen 'health.local:8787': the host must be an IPv4 address, localhost or *, not 'health.local'"),
            ("sources:\n  p:\n    type: admin\n    listen: \"9187\"\n",
             "sources.p.listen: listen must be host:port, not '9187': the port is missing\n  hint: write it as 127.0.0.1:9187"),
            // A value of the wrong shape says how to write it.
            ("sinks:\n  m:\n    type: http\n    url: \"http://x\"\n    gzip: maybe\n",
             "sinks.m.gzip: expected true or false, found \"maybe\"\n  hint: write gzip: true or gzip: false"),
            ("sources:\n  p:\n    type: http_push\n    listen: 127.0.0.1:8787\n    users: [alice]\n",
             "sources.p.users: expected a mapping, found a list\n  hint: write its settings as 'name: value' lines indented under 'users:'"),
            ("sources:\n  p:\n    type: http_push\n    listen: 127.0.0.1:8787\n    tls_certificate: c.pem\n",
             "sources.p.tls_certificate: tls_certificate without tls_key: HTTPS needs both\n  hint: add tls_key:"),
        ] {
            let refused = try check(yaml)
            #expect(refused.status == 78 && refused.stderr.contains(says), "\(refused.stderr)")
            #expect(!refused.stderr.contains("p@ss") && !refused.stderr.contains("s3cr3t"))
        }
        // status and dump, which open no sink, still refuse the config as check does.
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("state_directory: \(directory)/state\nsinks:\n  local:\n    type: sqlite\n    pth: x.sqlite\n",
                                     in: directory)
        for command in ["status", "dump"] {
            let refused = try CommandRunner.run([command, "--config", config], in: directory)
            #expect(refused.status == 78 && refused.stderr.contains("sinks.local.pth"), "\(command): \(refused.stderr)")
        }
    }

    /// With `--log-format json`, an error that ends a command is one JSON object a line, in the
    /// log's shape, with its hint and exit code (it was two lines of plain text): a config error, a
    /// wrong command line, an input that is not an export.
    @Test func withJSONLogsAFatalErrorIsOneJSONLine() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("sinks:\n  local:\n    type: sqlite\n    pth: x.sqlite\n", in: directory)
        _ = FileManager.default.createFile(atPath: directory + "/pic.png", contents: Data([0x89, 0x50, 0x4E, 0x47, 0, 0]))
        let cases: [([String], Int32, message: String, hint: String)] = [
            (["check", "--config", config, "--log-format", "json"], 78, "sinks.local.pth: unknown key", "did you mean 'path'?"),
            (["--log-format=json", "status", "extra"], 64, "status takes no arguments, not 'extra'", "see: healthrouter status --help"),
            (["import", "pic.png", "--log-format", "json"], 65, "pic.png: this is not an Apple Health export", "give the export.zip"),
        ]
        for (arguments, status, message, hint) in cases {
            let result = try CommandRunner.run(arguments, in: directory)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any],
                                      "\(result.stderr)")
            #expect(object["level"] as? String == "error" && object["time"] is String)
            #expect((object["message"] as? String)?.contains(message) == true, "\(object)")
            #expect((object["hint"] as? String)?.hasPrefix(hint) == true, "\(object)")
            // A number, as a log reader compares it.
            #expect(object["exit_code"] as? Int == Int(status), "\(object)")
            #expect(lines.first?.contains("\"exit_code\":\(status)}") == true, "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/healthrouter-data"))
    }

    /// Configs that cannot work are refused by `check` (78), each at its key with what is wrong:
    /// (why, the config, what stderr says).
    static let refused: [(String, String, String)] = [
        ("an empty path would make SQLite open a temporary database: the data would go nowhere",
         "sinks:\n  local:\n    type: sqlite\n    path: \"\"\n",
         "hr.yaml:4:11: sinks.local.path: must not be empty: the SQLite file to write"),
        ("the same for an ndjson folder", "sinks:\n  lake: { type: ndjson, directory: \"\" }\n",
         "sinks.lake.directory: must not be empty: the folder to write"),
        ("a time zone that cannot be one's name", "sinks:\n  p:\n    type: postgres\n    url: postgres://x/y\n    user_id: me\n"
            + "    time_zone: \"UTC'; DROP TABLE x; --\"\n",
         "sinks.p.time_zone: 'UTC'; DROP TABLE x; --' is not a time zone name"),
        ("PostgreSQL reads a POSIX-style offset with the opposite sign: +02:00 would be UTC-2",
         "sinks:\n  p:\n    type: postgres\n    url: postgres://x/y\n    user_id: me\n    time_zone: \"+02:00\"\n",
         "sinks.p.time_zone: '+02:00' is a POSIX-style offset, which PostgreSQL applies with the opposite sign"),
        ("the same spelt with UTC, and the zone probably meant is named",
         "sinks:\n  p:\n    type: postgres\n    url: postgres://x/y\n    user_id: me\n    time_zone: UTC-5\n",
         "use an IANA zone name instead: Etc/GMT+5 is UTC-5 all year, or a place's zone such as Europe/Berlin"),
        ("a store on the journal's own file would write its tables into the journal",
         "state_directory: ./st\nsinks:\n  local: { type: sqlite, path: ./st/../st/journal.sqlite }\n",
         "sinks.local.path: ./st/../st/journal.sqlite is the journal's own file"),
        ("the same, named from the root (`check` runs in the config's folder)",
         "state_directory: ./st\nsinks:\n  local: { type: sqlite, path: \"@DIR@/st/journal.sqlite\" }\n",
         "/st/journal.sqlite is the journal's own file"),
        ("a token names its user: with one token for two, one would push as the other",
         "sources:\n  phone: { type: http_push, listen: \"127.0.0.1:0\", users: { alice: { token: short }, bob: { token: short } } }\n"
            + "sinks:\n  local: { type: sqlite, path: x.sqlite }\n",
         "sources.phone.users.bob.token: users 'alice' and 'bob' have the same token"),
        ("spaces around a token are not part of it (as around one a request presents): the same token, and a blank one",
         "sources:\n  phone: { type: http_push, listen: \"127.0.0.1:0\", users: { alice: { token: short }, bob: { token: \" short \" } } }\n"
            + "sinks:\n  local: { type: sqlite, path: x.sqlite }\n",
         "sources.phone.users.bob.token: users 'alice' and 'bob' have the same token"),
        ("a token of spaces is empty",
         "sources:\n  phone: { type: http_push, listen: \"127.0.0.1:0\", users: { alice: { token: \"  \" } } }\n"
            + "sinks:\n  local: { type: sqlite, path: x.sqlite }\n",
         "sources.phone.users.alice.token: the token of user 'alice' is empty"),
        ("a plugin's own check points at the key, not at the plugin's name",
         "sources:\n  phone:\n    type: http_push\n    listen: \"127.0.0.1:0\"\n    max_connections: 0\n",
         "hr.yaml:5:22: sources.phone.max_connections: max_connections must be 1…65536, not 0"),
        ("two sources on one port: the second could not listen, as if another program held it",
         "sources:\n  phone: { type: http_push, listen: \"127.0.0.1:8787\" }\n  phone2:\n    type: http_push\n"
            + "    listen: \"0.0.0.0:8787\"\n    users: { a: { token: t } }\n",
         "hr.yaml:5:13: sources.phone2.listen: 0.0.0.0:8787 is also where source 'phone' listens "
            + "(sources.phone.listen: 127.0.0.1:8787): two sources cannot share a port"),
        ("the same for the admin listener",
         "sources:\n  phone: { type: http_push, listen: \"127.0.0.1:8787\" }\n  ops: { type: admin, listen: \"127.0.0.1:8787\" }\n",
         "sources.ops.listen: 127.0.0.1:8787 is also where source 'phone' listens"),
        ("a retention of 0 would drop everything at once",
         "sinks:\n  t:\n    type: timescaledb\n    url: postgres://x/y\n    retention: { drop_after: 0d }\n",
         "sinks.t.retention.drop_after: must be at least 1d, is 0s (chunks older than this are dropped, with their data)"),
        ("the daily aggregate's refresh must cover two whole days short of drop_after",
         "sinks:\n  t:\n    type: timescaledb\n    url: postgres://x/y\n    daily_aggregates: true\n    retention: { drop_after: 3d }\n",
         "sinks.t.retention: drop_after (3d) is shorter than 4d, which daily_aggregates needs"),
        ("30m is 30 minutes, not months: nearly everything would be dropped",
         "sinks:\n  t:\n    type: timescaledb\n    url: postgres://x/y\n    retention: { drop_after: 30m }\n",
         "is 30m (chunks older than this are dropped, with their data); `m` means minutes: write months as days or weeks"),
        ("chunks dropped before they are compressed: the two durations were probably swapped",
         "sinks:\n  t:\n    type: timescaledb\n    url: postgres://x/y\n    compression: { after: 520w }\n    retention: { drop_after: 30d }\n",
         "sinks.t.retention: drop_after (30d) is not longer than compression.after (3640d): chunks would be dropped before they are compressed"),
        ("tiering folds and deletes raw rows: the same slip",
         "sinks:\n  p:\n    type: postgres\n    url: postgres://x/y\n    user_id: me\n    summarize_after: 6m\n",
         "sinks.p.summarize_after: must be at least 1d, is 6m (raw rows older than this are folded into daily summaries and deleted)"),
        ("the same for compression", "sinks:\n  t:\n    type: timescaledb\n    url: postgres://x/y\n    compression: { after: 0s }\n",
         "sinks.t.compression.after: must be longer than 0"),
    ]

    @Test(arguments: refused.indices)
    func aConfigThatCannotWorkIsRefused(_ index: Int) throws {
        let (why, yaml, says) = Self.refused[index]
        let result = try check(yaml)
        #expect(result.status == 78, "\(why): \(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(says), "\(why): \(result.stderr)")
    }

    /// Zone names with a dash, digits or `+` (IANA's `Etc/` zones and legacy names) are zones.
    @Test(arguments: ["America/Port-au-Prince", "Etc/GMT-2", "Etc/GMT+10", "EST5EDT", "GMT0"])
    func aZoneWithADashOrDigitsIsAZone(_ zone: String) throws {
        #expect(try check("sinks:\n  p:\n    type: postgres\n    url: postgres://x/y\n    user_id: me\n    time_zone: \(zone)\n").status == 0)
    }

    /// Tiering under 30 days works but makes health4ai's reader undercount: `check` says so, and passes.
    @Test func tieringUnderThirtyDaysIsAWarning() throws {
        let config = "sinks:\n  p:\n    type: postgres\n    url: postgres://x/y\n    user_id: me\n    summarize_after: "
        let short = try check(config + "7d\n")
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stderr.contains("warning: sinks.p.summarize_after: summarize_after 7d is under 30d: health4ai's reader"),
                "\(short.stderr)")
        let month = try check(config + "30d\n")
        #expect(month.status == 0 && !month.stderr.contains("summarize_after"), "\(month.stderr)")
    }

    /// A config read from a pipe (`--config <(envsubst < healthrouter.yaml)`) is read like a file;
    /// a folder named as the config says so.
    @Test func aConfigFromAPipeIsReadAndAFolderIsRefused() throws {
        let directory = makeTemporaryDirectory()
        _ = try writeConfig("sinks:\n  local: { type: sqlite, path: x.sqlite }\n", in: directory)
        let piped = try CommandRunner.run(["check", "--config", "config.fifo"], in: directory,
                                          shellSetup: "mkfifo config.fifo && (timeout 10 sh -c 'cat hr.yaml > config.fifo' &)")
        #expect(piped.status == 0, "\(piped.stdout)\(piped.stderr)")
        #expect(piped.stdout.contains("config.fifo: valid — 0 source(s), 1 sink(s)"), "\(piped.stdout)")
        let folder = try CommandRunner.run(["check", "--config", directory], in: directory)
        #expect(folder.status == 78)
        #expect(folder.stderr.contains("\(directory): is a folder, not a config file"), "\(folder.stderr)")
    }

    /// `check --connect` opens each sink: a misconfigured one (its folder under a file) is a config
    /// error (78), not a store that could not be reached (1).
    @Test func checkConnectCallsAMisconfiguredSinkAConfigError() throws {
        let directory = makeTemporaryDirectory()
        let config = try SinkDownTests.configWithAMisconfiguredSink(in: directory, goodSink: "good")
        let result = try CommandRunner.run(["check", "--connect", "--config", config], in: directory)
        #expect(result.status == 78, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("good: connected, schema ready"))
        #expect(result.stdout.contains("lake: FAILED: misconfigured: \(directory)/afile is a file"), "\(result.stdout)")
    }

    @Test func anUnknownSinkTypeSuggestsTheRightOne() throws {
        let result = try check("sinks:\n  local:\n    type: sqlit\n    path: x\n")
        #expect(result.status == 78)
        #expect(result.stderr.contains("hr.yaml:3:11: sinks.local.type: unknown sink type 'sqlit'"))
        #expect(result.stderr.contains("hint: did you mean 'sqlite'?"))
        let doubled = try check("sinks:\n  local:\n    type: sqllite\n    path: x\n")
        #expect(doubled.status == 78)
        #expect(doubled.stderr.contains("hint: did you mean 'sqlite'?"))
        let unknown = try check("sinks:\n  local:\n    type: elasticsearch\n")
        #expect(unknown.status == 78)
        #expect(unknown.stderr.contains("hint: known sink types: sqlite, ndjson"))
    }

    @Test func aWrongHTTPSinkFormatIsReportedAtItsOwnLine() throws {
        let result = try check("""
        sinks:
          mirror:
            type: http
            url: https://health.example.org
            format: natve
        """)
        #expect(result.status == 78)
        #expect(result.stderr.contains("hr.yaml:5:13: sinks.mirror.format: expected one of pulso, native"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: did you mean 'native'?"))
    }

    @Test func typesListsTheRegistry() throws {
        let result = try CommandRunner.run(["types", "--group", "sleep"], in: TestScratch.path)
        #expect(result.status == 0)
        #expect(result.stdout.contains("HKCategoryTypeIdentifierSleepAnalysis"))
        #expect(!result.stdout.contains("HKQuantityTypeIdentifierHeartRate "))
        // The scaling column: the units converted into the canonical one, ×100 for percentages.
        let all = try CommandRunner.run(["types"], in: TestScratch.path)
        let lines = all.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasSuffix("scaling") == true, "\(lines.first ?? "")")
        func row(_ identifier: String) -> String { lines.first { $0.contains(identifier + " ") } ?? "" }
        #expect(row("HKQuantityTypeIdentifierDistanceWalkingRunning").hasSuffix("from mm, cm, in, ft, yd, km, mi"),
                "\(row("HKQuantityTypeIdentifierDistanceWalkingRunning"))")
        #expect(row("HKQuantityTypeIdentifierAppleSleepingWristTemperature").contains("from "))
        #expect(row("HKQuantityTypeIdentifierAppleSleepingWristTemperature").contains("degF"))
        #expect(row("HKQuantityTypeIdentifierRunningGroundContactTime").hasSuffix("from s, min, hr, d"),
                "\(row("HKQuantityTypeIdentifierRunningGroundContactTime"))")
        #expect(row("HKQuantityTypeIdentifierOxygenSaturation").hasSuffix("×100 from an export's 0–1"))
        #expect(row("HKQuantityTypeIdentifierStepCount").hasSuffix(" -"))
        #expect(row("HKCategoryTypeIdentifierSleepAnalysis").hasSuffix(" -"))
        let missing = try CommandRunner.run(["types", "--config", "/nonexistent/hr.yaml"], in: TestScratch.path)
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("config file /nonexistent/hr.yaml does not exist"))
        // A sink's misspelt key is the config error every other command reports.
        let directory = makeTemporaryDirectory()
        let misspelt = try writeConfig("""
            sinks:
              local: { type: sqlite, pth: ./x.sqlite }
            """, in: directory)
        let wrong = try CommandRunner.run(["types", "--config", misspelt], in: directory)
        #expect(wrong.status == 78, "\(wrong.stdout)")
        #expect(wrong.stderr.contains("sinks.local.pth: unknown key"), "\(wrong.stderr)")
        // The group of every type the registry does not list lists none, and says so.
        let other = try CommandRunner.run(["types", "--group", "other"], in: TestScratch.path)
        #expect(other.status == 0 && other.stdout.contains("the group other is every type this registry does not list"),
                "\(other.stdout)")
        let bad = try CommandRunner.run(["types", "--group", "slep"], in: TestScratch.path)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("sleep"))
    }

    /// A misspelt option, type or sink name on the command line gets the one it was meant to be
    /// (the same suggester the config's keys use: case, `_` and `-` do not count).
    @Test func commandLineTyposSuggestTheRightWord() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("state_directory: \(directory)/state\nsinks:\n  local: { type: sqlite, path: \(directory)/h.sqlite }\n",
                                     in: directory)
        let option = try CommandRunner.run(["status", "--confg", config], in: directory)
        #expect(option.status == 64)
        #expect(option.stderr.contains("unknown option --confg (did you mean --config?)"), "\(option.stderr)")
        let type = try CommandRunner.run(["dump", "--types", "heartrate", "--config", config], in: directory)
        #expect(type.status == 64)
        #expect(type.stderr.contains("'heartrate' is no known type, short key or group (did you mean 'heartRate'?)"), "\(type.stderr)")
        // An identifier close to no known name selects that type alone, as in routes (unknown types pass through).
        let unknown = try CommandRunner.run(["dump", "--types", "HKQuantityTypeIdentifierFooBar", "--config", config], in: directory)
        #expect(unknown.status != 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("it selects only a type with exactly this identifier"), "\(unknown.stderr)")
        let identifier = try CommandRunner.run(["dump", "--types", "HKQuantityTypeIdentifierHeartRat", "--config", config], in: directory)
        #expect(identifier.status == 64)
        #expect(identifier.stderr.contains("(did you mean 'HKQuantityTypeIdentifierHeartRate'?)"), "\(identifier.stderr)")
        // A newer identifier that extends a known one is no typo of it.
        let newer = try CommandRunner.run(["dump", "--types", "HKQuantityTypeIdentifierHeartRateVariabilityRMSSD", "--config", config],
                                          in: directory)
        #expect(newer.status != 64 && newer.stderr.contains("it selects only a type with exactly this identifier"), "\(newer.stderr)")
        let plural = try CommandRunner.run(["dump", "--types", "HKQuantityTypeIdentifierStepCounts", "--config", config], in: directory)
        #expect(plural.status == 64 && plural.stderr.contains("did you mean 'HKQuantityTypeIdentifierStepCount'?"), "\(plural.stderr)")
        let malformed = try CommandRunner.run(["dump", "--types", "heart rate", "--config", config], in: directory)
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("'heart rate' is not a type selector"), "\(malformed.stderr)")
        // `--types ""` (an empty shell variable) is no filter of every type, and an option given twice
        // with two values is not the last one's to decide.
        for empty in ["", ","] {
            let none = try CommandRunner.run(["dump", "--types", empty, "--config", config], in: directory)
            #expect(none.status == 64 && none.stderr.contains("--types names no type"), "\(none.stderr)")
        }
        let twice = try CommandRunner.run(["status", "--config", config, "--config", directory + "/other.yaml"], in: directory)
        #expect(twice.status == 64, "\(twice.stderr)")
        #expect(twice.stderr.contains("--config is given twice ('\(config)' and '\(directory)/other.yaml'): give it once"),
                "\(twice.stderr)")
        // Taken (no journal there: the command ran, and says so).
        let same = try CommandRunner.run(["status", "--config", config, "--config=\(config)"], in: directory)
        #expect(same.status == 66 && same.stderr.contains("this used the config \(config)"), "\(same.stderr)")
        let sink = try CommandRunner.run(["dump", "--from", "lokal", "--config", config], in: directory)
        #expect(sink.status == 64)
        #expect(sink.stderr.contains("no sink called 'lokal' (did you mean 'local'?)"), "\(sink.stderr)")
        let command = try CommandRunner.run(["stauts"], in: directory)
        #expect(command.status == 64)
        #expect(command.stderr.contains("unknown command 'stauts' (did you mean 'status'?)"), "\(command.stderr)")
    }

    /// Every command's help, and the general one, keeps its lines within 100 columns, as they are
    /// wrapped: the exit codes of dump, import and backfill ran to 147, 132 and 108. Dump's and migrate's
    /// say that a --from sqlite file copied over mid-read is read again, as Plugins/SQLiteSink/README.md does.
    @Test func everyHelpFitsItsWidth() throws {
        for command in ["", "import", "run", "status", "check", "types", "dump", "backfill", "migrate"] {
            let result = try CommandRunner.run(command.isEmpty ? ["--help"] : [command, "--help"], in: TestScratch.path)
            #expect(result.status == 0)
            let long = result.stdout.split(separator: "\n").filter { $0.count > 100 }.map(String.init)
            #expect(long.isEmpty, "healthrouter \(command) --help: \(long)")
        }
        for command in ["dump", "migrate"] {
            let help = try CommandRunner.run([command, "--help"], in: TestScratch.path).stdout
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.contains("A --from sqlite file copied over mid-read (cp backup.sqlite FILE) is opened again"),
                    "healthrouter \(command) --help: \(help)")
        }
    }

    @Test func everyCommandHasHelp() throws {
        for command in ["import", "status", "check", "types"] {
            let result = try CommandRunner.run([command, "--help"], in: TestScratch.path)
            #expect(result.status == 0)
            #expect(result.stdout.contains("usage: healthrouter \(command)"))
        }
        let unknown = try CommandRunner.run(["imprt"], in: TestScratch.path)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("import"))
        // The general help lists every option, --version too.
        let general = try CommandRunner.run(["--help"], in: TestScratch.path)
        #expect(general.status == 0 && general.stdout.contains("--version"), "\(general.stdout)")
        // Its line for import names every kind of file import reads (a source plugin's each).
        #expect(general.stdout.contains("Apple Health exports (export.zip / export.xml), Health Auto\n")
                    && general.stdout.contains("Export's JSON files or NDJSON"), "\(general.stdout)")
        let version = try CommandRunner.run(["--version"], in: TestScratch.path)
        #expect(version.status == 0 && version.stdout.hasPrefix("healthrouter "), "\(version.stdout)")
        // Each flag it lists for every command is one every command takes (`types` needs no journal):
        // --version was listed there, and `healthrouter types --version` was a wrong option (exit 64).
        let section = general.stdout.components(separatedBy: "options for every command:\n").last?
            .components(separatedBy: "\n\n").first ?? ""
        let flags = section.split(separator: "\n").compactMap { line -> [String]? in
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
            guard let first = words.first, first.hasPrefix("-") else { return nil }
            // An option followed by its value (FILE, text|json, …) is not a flag.
            if words.count > 1, !words[1].hasPrefix("-"), words[1].uppercased() == words[1] || words[1].contains("|") {
                return nil
            }
            return words.prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }.filter { $0.hasPrefix("-") }
        }.flatMap { $0 }
        #expect(flags.contains("--quiet") && flags.contains("--help"), "\(section)")
        for flag in flags {
            let result = try CommandRunner.run(["types", flag], in: TestScratch.path)
            #expect(result.status == 0, "types \(flag): \(result.stderr)")
        }
    }
}
