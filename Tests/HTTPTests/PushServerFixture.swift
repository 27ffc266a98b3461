import Foundation
import TestSupport
import HealthRouterCore
@testable import HTTPPushSource

/// An `http_push` source on a random loopback port in 20000–60000, with its own state directory.
final class PushServerFixture {
    let directory: String
    let source: HTTPPushSource
    let control = WorkerControl()
    let ingest: PushIngest
    var client: HTTPTestClient { HTTPTestClient(port: source.listeningPort) }

    static let tokens = ["alice": "token-alice-1234", "bob": "token-bob-5678"]

    /// `tls`: PEM certificate and key files to serve HTTPS with; `configure` sets further keys;
    /// `parsing`: the source's own parse budget instead of the one all push sources share.
    init(users: [String: String] = PushServerFixture.tokens, tls: (certificate: String, key: String)? = nil,
         parsing: ParseBudget? = nil,
         configure: (inout HTTPPushSource.Configuration) -> Void = { _ in }) throws {
        directory = TestScratch.path + "http-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        ingest = try PushIngest(stateDirectory: directory, control: control)
        var lastError: (any Error)?
        for _ in 0..<20 {
            let port = Int(DaemonProcess.randomListenPort())
            var configuration = HTTPPushSource.Configuration(listen: "127.0.0.1:\(port)")
            configuration.tlsCertificate = tls?.certificate
            configuration.tlsKey = tls?.key
            if !users.isEmpty {
                configuration.users = users.mapValues { HTTPPushSource.Configuration.User(token: $0) }
            }
            configure(&configuration)
            let context = PluginContext(name: "phone", stateDirectory: directory, logger: Logger(minimumLevel: .error))
            let candidate = try HTTPPushSource(configuration: configuration, context: context,
                                               parsing: parsing ?? PushRequestHandler.parsing)
            do {
                try candidate.start(ingest: ingest)
                source = candidate
                return
            } catch {
                lastError = error
            }
        }
        throw lastError!
    }

    deinit {
        source.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every journal entry, decoded.
    func journalItems() throws -> [HealthItem] {
        let journal = try Journal(stateDirectory: directory)
        return try journal.entries(after: 0, limit: 1_000_000).map { try $0.decoded().item }
    }
}
