import HealthRouterCore

/// Reads one GPX file fed in chunks: repairs its bytes as an export.xml's are (`ExportByteFilter`)
/// and runs libxml2 (`SAXPushParser`) into a `GPXRouteParser`. A control character XML forbids
/// (`\x0b` in a `<name>` or `<desc>`) becomes a space, where libxml2 stopped at it and the route's
/// points after it were lost; a file whose lines end in CR alone has its problems said on their
/// lines, where all were on line 1. A GPX file has no DOCTYPE: the filter finds the `<gpx>`
/// element at once and passes the rest straight through.
final class GPXRouteReader {
    private let parser: GPXRouteParser
    private let sax: SAXPushParser
    private var filter = ExportByteFilter()

    init(documentName: String, onPoint: @escaping (RoutePoint) -> Void,
         onSkip: @escaping (_ reason: String, _ line: Int) -> Void) {
        parser = GPXRouteParser(onPoint: onPoint, onSkip: onSkip)
        sax = SAXPushParser(handler: parser, documentName: documentName)
    }

    /// Whether the route holds its most points (`GPXRouteParser.isFull`): read no further.
    var isFull: Bool { parser.isFull }

    /// Parses `chunk` (repaired in place); `isLast` ends the document. Returns the failure that
    /// ends the file's points (the points before it were handed on), nil while it reads well.
    func feed(_ chunk: UnsafeMutableRawBufferPointer, isLast: Bool) -> SAXParseFailure? {
        var failure: SAXParseFailure?
        filter.filter(chunk, isLast: isLast) { bytes in
            if failure == nil { failure = sax.parse(bytes) }
        }
        if isLast && failure == nil { failure = sax.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true) }
        if let line = failure?.line { failure?.line = filter.fileLine(line) }
        return failure
    }
}
