import Foundation
import HealthRouterCore

/// The GPX routes of a zip, parsed in a first pass over the archive and kept on disk
/// until export.xml asks for them: libarchive reads entries in archive order, and the
/// routes may come before or after export.xml.
///
/// Memory: one index entry per GPX file (its path and where its points are), plus a
/// write buffer of `flushThreshold` points; the points themselves (72 bytes each) are
/// in an unlinked temporary file, read back one route at a time.
final class RoutePointStore: RouteFileResolver {
    /// A point as stored: fixed size, NaN for an absent optional.
    private struct StoredPoint {
        var epochMilliseconds: Int64
        var utcOffsetSeconds: Int32
        var hasOffset: Int32
        var latitude: Double
        var longitude: Double
        var altitude: Double
        var horizontalAccuracy: Double
        var verticalAccuracy: Double
        var course: Double
        var speed: Double
    }

    private static let flushThreshold = 8192
    private let descriptor: Int32
    private var buffer: [StoredPoint] = []
    private var storedCount = 0
    private var routes: [String: Range<Int>] = [:]
    /// How many references each route `points(forReference:)` found gave its points to.
    private var uses = RouteFileUses()
    private var currentPath: String?
    private var currentStart = 0
    /// A failed write during `append`, thrown by the next `endRoute`.
    private var writeError: Error?

    /// Where a `FileReference` leads (its `dataFolder` is export.xml's).
    var paths = ZipReferencePaths()

    /// The most bytes of points the file takes (`ZipExportReader.temporaryByteLimit`).
    let byteLimit: Int
    /// Whether a point was refused since `beginRoute` for want of room under `byteLimit`.
    private(set) var routeIsCut = false

    /// Creates the temporary file in `directory` (the state directory, else the system's), to
    /// hold at most `byteLimit` bytes of points.
    init(directory: String, byteLimit: Int = .max) throws {
        descriptor = try UnlinkedTemporaryFile.open(in: directory, prefix: "healthrouter-routes", purpose: "the workout routes")
        self.byteLimit = byteLimit
    }

    deinit {
        close(descriptor)
    }

    var routeCount: Int { routes.count }

    /// The GPX files no `points(forReference:)` asked for, by path: what no workout of the data
    /// file references (a workout whose route is inline `Location`s).
    var unreferencedPaths: [String] { routes.keys.filter { !uses.wasUsed($0) }.sorted() }

    /// Starts the points of the GPX file at `path` in the archive.
    func beginRoute(path: String) {
        currentPath = path
        currentStart = storedCount + buffer.count
        routeIsCut = false
    }

    /// Keeps `point` in the current route, unless the file holds `byteLimit` bytes (`routeIsCut`).
    func append(_ point: RoutePoint) {
        guard (storedCount + buffer.count + 1) * MemoryLayout<StoredPoint>.stride <= byteLimit else {
            routeIsCut = true
            return
        }
        buffer.append(StoredPoint(
            epochMilliseconds: point.time.epochMilliseconds, utcOffsetSeconds: point.time.utcOffsetSeconds ?? 0,
            hasOffset: point.time.utcOffsetSeconds == nil ? 0 : 1, latitude: point.latitude, longitude: point.longitude,
            altitude: point.altitude ?? .nan, horizontalAccuracy: point.horizontalAccuracy ?? .nan,
            verticalAccuracy: point.verticalAccuracy ?? .nan, course: point.course ?? .nan, speed: point.speed ?? .nan))
        if buffer.count >= Self.flushThreshold {
            do { try flush() } catch { writeError = writeError ?? error }
        }
    }

    /// Whether a route was begun and not ended.
    var hasOpenRoute: Bool { currentPath != nil }

    /// The GPX files that could not be read at all, reported already: a workout referencing one
    /// says nothing more of it.
    private var refused: Set<String> = []

    /// Marks the GPX file at `path` as one that could not be read (reported already).
    func refuse(path: String) {
        refused.insert(path)
        paths.add(path)
    }

    func endRoute() throws {
        if let writeError { throw writeError }
        guard let path = currentPath else { return }
        currentPath = nil
        routes[path] = currentStart..<(storedCount + buffer.count)
        paths.add(path)
        try flush()
    }

    func points(forReference reference: String) -> RouteLookup {
        let path = paths.path(of: reference) { routes[$0] != nil || refused.contains($0) }
        if refused.contains(path) { return .refused }
        guard let range = routes[path] else { return .missing }
        guard uses.use(path) else { return .exhausted }
        guard !range.isEmpty else { return .found([]) }
        var stored = [StoredPoint](repeating: StoredPoint(epochMilliseconds: 0, utcOffsetSeconds: 0, hasOffset: 0,
                                                          latitude: 0, longitude: 0, altitude: 0, horizontalAccuracy: 0,
                                                          verticalAccuracy: 0, course: 0, speed: 0),
                                   count: range.count)
        let stride = MemoryLayout<StoredPoint>.stride
        let complete = stored.withUnsafeMutableBytes { bytes in
            UnlinkedTemporaryFile.read(descriptor, into: bytes, at: range.lowerBound * stride)
        }
        guard complete else { return .missing }
        return .found(stored.map { point in
            func optional(_ value: Double) -> Double? { value.isNaN ? nil : value }
            return RoutePoint(
                time: Timestamp(epochMilliseconds: point.epochMilliseconds,
                                utcOffsetSeconds: point.hasOffset == 0 ? nil : point.utcOffsetSeconds),
                latitude: point.latitude, longitude: point.longitude, altitude: optional(point.altitude),
                horizontalAccuracy: optional(point.horizontalAccuracy), verticalAccuracy: optional(point.verticalAccuracy),
                course: optional(point.course), speed: optional(point.speed))
        })
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        let stride = MemoryLayout<StoredPoint>.stride
        let ok = buffer.withUnsafeBytes { UnlinkedTemporaryFile.write(descriptor, $0, at: storedCount * stride) }
        guard ok else {
            throw SourceError(input: "temporary route file", problem: "writing workout route points failed: \(String(cString: strerror(errno)))",
                              hint: "free some disk space in the state directory", stateNotWritable: true)
        }
        storedCount += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}
