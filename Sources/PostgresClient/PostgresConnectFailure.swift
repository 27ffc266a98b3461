/// Sorts a failed connection attempt: a server that is down or unreachable (retry later) from one
/// that refused this configuration (a wrong password, a database that does not exist), which no
/// retry mends until someone changes the config or the server.
///
/// libpq gives no SQLSTATE for a refused connection, only text: libpq's own (English, since
/// healthrouter never selects a message catalog) and the server's, in the server's `lc_messages`.
/// A server that speaks another language is therefore taken as unavailable: retried, with its
/// message shown. So is a host name that does not resolve (DNS, or a tailnet, not up yet).
enum PostgresConnectFailure {
    /// What to fix when `message` (libpq's error text) says the configuration is at fault; nil
    /// when the server may just be down, starting up or full. `needsPassword`: libpq's
    /// `PQconnectionNeedsPassword`, true when the server asked for a password and none was given.
    static func advice(message: String, needsPassword: Bool) -> String? {
        let text = message.lowercased()
        if needsPassword || text.contains("no password supplied") {
            return "the server asks for a password: put it in the sink's `url` "
                + "(postgres://user:${PGPASSWORD}@host/db, the password percent-encoded)"
        }
        if text.contains("password authentication failed") {
            return "check the user and password in the sink's `url` (percent-encode @ : / ? # in the password)"
        }
        // Not LDAP, RADIUS or PAM: the server says "authentication failed" too when it cannot reach them.
        if ["peer authentication failed", "ident authentication failed", "certificate authentication failed"]
            .contains(where: text.contains) {
            return "the server's pg_hba.conf refuses this user by this method: connect as the user it names, "
                + "or with a password (postgres://user:password@host/db)"
        }
        if text.contains("no pg_hba.conf entry") || text.contains("pg_hba.conf rejects connection") {
            return "the server's pg_hba.conf does not let this user connect from here "
                + "(or without TLS): add a line for it, or set sslmode=require in the sink's `url`"
        }
        if text.contains("is not permitted to log in") {
            return "the role cannot log in: ALTER ROLE … LOGIN, or connect as another user"
        }
        if text.contains("does not have connect privilege") {
            return "GRANT CONNECT ON DATABASE … TO the user, or connect as another user"
        }
        if text.contains("channel binding required") {
            return "the server does not offer channel binding here: drop channel_binding=require from the sink's `url`, "
                + "or connect with TLS and SCRAM"
        }
        if text.contains("database \""), text.contains("\" does not exist") {
            return "create the database (createdb NAME) or fix its name in the sink's `url`"
        }
        if text.contains("role \""), text.contains("\" does not exist") {
            return "create the role (createuser NAME) or fix the user in the sink's `url`"
        }
        if text.contains("server does not support ssl") {
            return "the server has no TLS: enable ssl on the server, or drop sslmode=require from the sink's `url`"
        }
        if text.contains("root certificate file"), text.contains("does not exist") {
            return "`sslrootcert` in the sink's `url` names a file that does not exist: fix the path"
        }
        if text.contains("certificate verify failed") || text.contains("does not match host name") {
            return "the server's certificate is not the one `sslrootcert` vouches for: point sslrootcert in the "
                + "sink's `url` at the CA that signed it, or fix the host name"
        }
        // libpq's own url and option errors (`invalid sslmode value: "x"`, `invalid port number: "99999"`).
        if ["invalid uri", "invalid connection option", "invalid integer value", "invalid port number",
            "invalid percent-encoded token", " value: \"", "missing \"=\"", "unterminated quoted string"]
            .contains(where: text.contains) {
            return "fix the sink's `url` (postgres://user:password@host:5432/db?sslmode=require, or host=… dbname=…)"
        }
        return nil
    }
}
