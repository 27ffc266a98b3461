import Foundation

/// A self-signed certificate and its key, made by the `openssl` command for TLS tests.
public struct SelfSignedCertificate {
    public let certificatePath: String
    public let keyPath: String

    /// Writes `<name>.pem` and `<name>.key` (RSA 2048, valid one day, subject `/CN=<commonName>`)
    /// into `directory`; throws when openssl fails.
    public init(in directory: String, name: String = "cert", commonName: String = "127.0.0.1") throws {
        certificatePath = directory + "/\(name).pem"
        keyPath = directory + "/\(name).key"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath,
                             "-out", certificatePath, "-days", "1", "-subj", "/CN=\(commonName)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl req exited \(process.terminationStatus)"])
        }
    }
}
