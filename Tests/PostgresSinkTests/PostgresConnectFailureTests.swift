import Testing
@testable import PostgresClient

/// The texts of failures no config change mends, or that may pass by themselves: they stay
/// retryable (no advice). The refused configurations are tested against the real server in
/// `PostgresConnectionTests`.
@Suite struct PostgresConnectFailureTests {
    @Test(arguments: [
        // The server could not reach its LDAP, RADIUS or PAM service: an outage, not a wrong password.
        "connection to server at \"10.0.0.5\", port 5432 failed: FATAL:  LDAP authentication failed for user \"me\"",
        "FATAL:  RADIUS authentication failed for user \"me\"",
        "FATAL:  PAM authentication failed for user \"me\"",
        "connection to server at \"127.0.0.1\", port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?",
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  the database system is starting up",
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  sorry, too many clients already",
        "could not translate host name \"db.tailnet\" to address: Temporary failure in name resolution",
        "connection to server at \"127.0.0.1\", port 5432 failed: timeout expired",
    ])
    func aPassingFailureIsNotAConfigurationProblem(_ message: String) {
        #expect(PostgresConnectFailure.advice(message: message, needsPassword: false) == nil)
    }

    @Test func aMissingPasswordIsOneWhateverTheText() {
        #expect(PostgresConnectFailure.advice(message: "anything", needsPassword: true)?.contains("asks for a password") == true)
    }
}
