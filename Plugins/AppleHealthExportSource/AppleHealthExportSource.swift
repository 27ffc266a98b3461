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
        /// The zone the phone keeps (`Europe/Berlin`): a sample that did not record its own
        /// (`HKTimeZone`) gets its UTC offsets at its instants, instead of the export's (the
        /// phone's offset on the day of the export, for every date: an hour off across a
        /// daylight-saving change). Nil: the export's.
        public var timeZone: String?

        public init(path: String, userId: String? = nil, timeZone: String? = nil) {
            self.path = path
            self.userId = userId
            self.timeZone = timeZone
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            path = try c.decode(String.self, forKey: .path)
            userId = try c.decodeIfPresent(String.self, forKey: .userId)
            timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
            if let timeZone, Self.zone(named: timeZone) == nil {
                throw DecodingError.dataCorruptedError(forKey: .timeZone, in: c, debugDescription:
                    "'\(timeZone)' is not the name of a zone this system knows: give an IANA name such as Europe/Berlin "
                        + "or America/New_York (the system's zones are in /usr/share/zoneinfo, Debian's tzdata)")
            }
        }

        /// The zone `name` names: an IANA name (`Europe/Berlin`, `UTC`), not an abbreviation or offset.
        public static func zone(named name: String) -> TimeZone? {
            guard name.contains("/") || name == "UTC" else { return nil }
            return TimeZone(identifier: name)
        }

        enum CodingKeys: String, CodingKey {
            case path
            case userId = "user_id"
            case timeZone = "time_zone"
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

    /// An export writes every date with the exporting phone's offset of that day; with a
    /// `time_zone`, each sample gets its zone's offsets at its instants instead.
    public var datesCarryTheExportersOffset: Bool { configuration.timeZone == nil }

    /// The zone `time_zone` names (checked when the config was read).
    private var phoneZone: TimeZone? { configuration.timeZone.flatMap(Configuration.zone(named:)) }

    public func read(into output: SourceOutput) throws {
        let file = try ExportFile(path: resolvedPath)
        let logger = context.logger
        switch file.format {
        case .zip:
            try ZipExportReader(file: file, userId: configuration.userId, phoneZone: phoneZone, stateDirectory: context.stateDirectory,
                                logger: logger).read(into: output)
        case .xml:
            try XMLFileExportReader(file: file, userId: configuration.userId, phoneZone: phoneZone, logger: logger).read(into: output)
        }
    }
}
