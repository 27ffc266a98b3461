import Testing
@testable import HealthRouterCore

/// `LiteralSecrets` names the keys whose secret is written in the config text, not those a
/// `${NAME}` reference takes from the environment, and never returns a value.
@Suite struct LiteralSecretsTests {
    @Test func secretsWrittenInTheTextAreNamedAndReferencesAreNot() throws {
        let config = try HealthRouterConfig.parse(yaml: """
            sources:
              phone:
                type: http_push
                listen: 127.0.0.1:0
                users:
                  bob: { token: "bob-secret-token-123" }
                  alice: { token: "${ALICE_TOKEN}" }
                  carol: { token: "$${not-a-reference}" }
            sinks:
              db: { type: postgres, url: "postgres://hr:Secret1@db.example/health" }
              tsdb: { type: timescaledb, url: "postgres://hr:${PGPASSWORD}@db.example/health?sslmode=verify-full" }
              words: { type: postgres, url: "host=db.example password = 'two words' dbname=health" }
              query: { type: postgres, url: "postgres://db.example/health?user=hr&password=q1&sslmode=require" }
              nopass: { type: postgres, url: "postgres://hr@db.example/health" }
              whole: { type: postgres, url: "${DB_URL}" }
              mirror: { type: http, url: "https://m:pw@mirror.example", token: "${MIRROR_TOKEN}" }
              mirror2: { type: http, url: "https://mirror.example", token: "mirror-secret" }
              empty: { type: http, url: "https://mirror.example", token: "" }
            """, file: "hr.yaml", environment: ["ALICE_TOKEN": "alice-secret", "PGPASSWORD": "pw2", "DB_URL": "postgres://a:b@c/d",
                                                 "MIRROR_TOKEN": "t"])
        #expect(LiteralSecrets.paths(in: config) == [
            "sources.phone.users.bob.token", "sources.phone.users.carol.token", "sinks.db.url", "sinks.words.url",
            "sinks.query.url", "sinks.mirror.url", "sinks.mirror2.token",
        ])
    }

    /// A reference left as written (its variable unset, in a section the command does not use)
    /// is no secret in the text.
    @Test func aReferenceLeftAsWrittenIsNoSecret() throws {
        let config = try HealthRouterConfigParser(file: "hr.yaml", environment: [:], unusedSections: ["sources"])
            .parse(Array("""
                sources:
                  phone: { type: http_push, listen: 127.0.0.1:0, users: { bob: { token: "${BOB_TOKEN}" } } }
                """.utf8))
        #expect(config.sources.first?.options["users"]?["bob"]?["token"]?.scalar == "${BOB_TOKEN}")
        #expect(LiteralSecrets.paths(in: config).isEmpty)
    }

    @Test func aPasswordPartlyReferencedIsNotCountedAndAnEmptyOneIsNot() {
        #expect(LiteralSecrets.secrets(in: "postgres://u:@h/db", key: "url").allSatisfy { !LiteralSecrets.isWrittenOut($0) })
        #expect(!LiteralSecrets.isWrittenOut("pre${X}"))
        #expect(LiteralSecrets.isWrittenOut("p$${x}"))
        #expect(LiteralSecrets.passwordWords(in: "host=h password='a b' sslpassword=k") == ["a b", "k"])
        #expect(LiteralSecrets.secrets(in: "anything", key: "listen").isEmpty)
    }
}
