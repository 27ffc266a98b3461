import Foundation
import HealthRouterCore

/// The `apple_health_export` source: reads the Health app's `export.zip` (or the
/// `export.xml` inside it) and emits every element as a `HealthItem`, streaming, in
/// constant memory. See README.md for where each element lands.
///
/// Contract (`FiniteSource`): `read(into:)` is called once; it emits batches of about
/// 5,000 items, reports what it cannot use to `skipped` and the bytes consumed to
/// `progress`, and throws `SourceError` naming the file, the line and what to do when
/// the input is unusable (items emitted before stay emitted).
public final class AppleHealthExportSource: FiniteSource {
    public struct Configuration: Decodable, Sendable {
        /// The export.zip or export.xml (`~` is expanded). Zip or XML is told by content.
        public var path: String
        /// The user the samples belong to.
        public var userId: String?

        public init(path: String, userId: String? = nil) {
            self.path = path
            self.userId = userId
        }

        enum CodingKeys: String, CodingKey {
            case path
            case userId = "user_id"
        }
    }

    public let configuration: Configuration
    private let context: PluginContext

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.context = context
    }

    /// The configured path with a leading `~` expanded from the context's home directory.
    public var resolvedPath: String {
        context.expandingTilde(configuration.path)
    }

    /// Whether the file at `path` is a Health data XML file, by content as in a zip (its name is
    /// localized): its first bytes hold `<!DOCTYPE HealthData` or `<HealthData`.
    public static func isHealthDataXML(path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        let head = (try? file.read(upToCount: ZipExportReader.sniffLength)) ?? Data()
        return head.withUnsafeBytes { ZipExportReader.isHealthData($0) }
    }

    /// Opens the file and classifies its first bytes (`ExportFile`): missing, empty, or neither zip
    /// nor XML; a zip's entries are listed (headers only): one without a file that can be the
    /// Health data is refused (`ZipExportReader.checkEntries`).
    public func checkInput() throws {
        let file = try ExportFile(path: resolvedPath)
        if file.format == .zip { try ZipExportReader.checkEntries(of: file) }
    }

    /// An export's records carry no ids: two of one fingerprint in one file are two samples.
    public var keepsTwinsApart: Bool { true }

    /// An export writes every date with the exporting phone's offset of that day.
    public var datesCarryTheExportersOffset: Bool { true }

    public func read(into output: SourceOutput) throws {
        let file = try ExportFile(path: resolvedPath)
        let logger = context.logger
        switch file.format {
        case .zip:
            try ZipExportReader(file: file, userId: configuration.userId, stateDirectory: context.stateDirectory,
                                logger: logger).read(into: output)
        case .xml:
            try XMLFileExportReader(file: file, userId: configuration.userId, logger: logger).read(into: output)
        }
    }
}
