import HealthRouterCore

/// Reads the track points of one GPX 1.1 file as the Health app writes them
/// (`<trkpt lat lon><ele/><time/><extensions><speed/><course/><hAcc/><vAcc/></extensions>`)
/// and hands each to `onPoint`. A point without a readable time, latitude or longitude
/// is reported through `onSkip` with its line. A file's first `maximumPoints` points are
/// handed on; past them, `isFull` tells the caller to stop reading (once reported).
final class GPXRouteParser: SAXHandler {
    /// The most points one route keeps: 69 hours at the Watch's one a second. A few kilobytes of
    /// zip holding millions of identical points took 2 GB of memory.
    static let maximumPoints = 250_000
    /// Whether `maximumPoints` were handed on and a point came past them (reported once).
    private(set) var isFull = false
    private var pointsHandedOn = 0

    private let names = XMLNameTable()
    private let onPoint: (RoutePoint) -> Void
    private let onSkip: (_ reason: String, _ line: Int) -> Void

    private var inPoint = false
    private var latitude: Double?
    private var longitude: Double?
    private var time: Timestamp?
    private var altitude: Double?
    private var speed: Double?
    private var course: Double?
    private var horizontalAccuracy: Double?
    private var verticalAccuracy: Double?
    /// The longest text of a field kept: a time or a number is a few dozen bytes. A longer one is
    /// no value (its point then has no time, or no altitude, …): a few MiB of zip holding a
    /// `<time>` of gigabytes took that much memory, and the process with it.
    static let longestFieldText = 1024

    /// The field whose text is being collected, and the text so far (at most `longestFieldText`
    /// bytes; `textTooLong` when more came).
    private var field: XMLName = .other
    private var text: [UInt8] = []
    private var textTooLong = false

    init(onPoint: @escaping (RoutePoint) -> Void, onSkip: @escaping (_ reason: String, _ line: Int) -> Void) {
        self.onPoint = onPoint
        self.onSkip = onSkip
    }

    override var wantsCharacters: Bool { true }

    override func startElement(_ name: UnsafePointer<UInt8>, _ attributes: SAXAttributes) {
        let element = names.name(name)
        if element == .trkpt {
            inPoint = true
            latitude = nil; longitude = nil; time = nil; altitude = nil
            speed = nil; course = nil; horizontalAccuracy = nil; verticalAccuracy = nil
            for index in 0..<attributes.count {
                switch names.name(attributes.name(index)) {
                case .lat: latitude = DecimalNumber.parse(attributes.value(index))
                case .lon: longitude = DecimalNumber.parse(attributes.value(index))
                default: break
                }
            }
            return
        }
        guard inPoint else { return }
        switch element {
        case .ele, .time, .speed, .course, .hAcc, .vAcc:
            field = element
            text.removeAll(keepingCapacity: true)
            textTooLong = false
        default:
            field = .other
        }
    }

    override func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard field != .other, !textTooLong else { return }
        guard text.count + bytes.count <= Self.longestFieldText else {
            textTooLong = true
            return
        }
        text.append(contentsOf: bytes)
    }

    override func endElement(_ name: UnsafePointer<UInt8>) {
        let element = names.name(name)
        if element == .trkpt {
            inPoint = false
            guard let time, let latitude, let longitude else {
                onSkip("GPX track point without a valid time, latitude or longitude", lineNumber)
                return
            }
            let point = RoutePoint(time: time, latitude: latitude, longitude: longitude, altitude: altitude,
                                   horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
                                   course: course, speed: speed)
            guard point.isUsable else {
                onSkip("GPX track point at no place on Earth, or with a number out of a double's range", lineNumber)
                return
            }
            guard pointsHandedOn < Self.maximumPoints else {
                if !isFull {
                    isFull = true
                    onSkip("GPX file with more than \(NumberText.grouped(Self.maximumPoints)) points: the rest left out", lineNumber)
                }
                return
            }
            pointsHandedOn += 1
            onPoint(point)
            return
        }
        guard inPoint, element == field, field != .other else { return }
        guard !textTooLong else {
            // No value: the point goes on without it (a time it lacks has it reported).
            field = .other
            return
        }
        text.withUnsafeBufferPointer { bytes in
            let trimmed = Self.trimmed(bytes)
            switch field {
            case .time: time = HealthDateParser.parse(trimmed)
            case .ele: altitude = DecimalNumber.parse(trimmed)
            case .speed: speed = DecimalNumber.parse(trimmed)
            case .course: course = DecimalNumber.parse(trimmed)
            case .hAcc: horizontalAccuracy = DecimalNumber.parse(trimmed)
            case .vAcc: verticalAccuracy = DecimalNumber.parse(trimmed)
            default: break
            }
        }
        field = .other
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] <= 0x20 { start += 1 }
        while end > start, bytes[end - 1] <= 0x20 { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}
