import CLibXML2

/// Receives the events of a `SAXPushParser`. Subclasses override what they need;
/// the parser calls through the class's vtable, which keeps the C callbacks cheap.
class SAXHandler {
    /// The libxml2 parser context while a `SAXPushParser` runs (line numbers, stopping).
    var parserContext: xmlParserCtxtPtr?
    /// Set by `stop(_:)`: why the handler ended the parse, and on which line.
    private(set) var failure: (line: Int, message: String)?

    /// Whether `characters(_:)` should be called (text content costs time; export.xml has none).
    var wantsCharacters: Bool { false }

    func startElement(_ name: UnsafePointer<UInt8>, _ attributes: SAXAttributes) {}
    func endElement(_ name: UnsafePointer<UInt8>) {}
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}

    /// The line the parser is on (1-based), 0 outside a parse.
    final var lineNumber: Int {
        guard let parserContext else { return 0 }
        return Int(xmlSAX2GetLineNumber(parserContext))
    }

    /// Ends the parse: no further events arrive and the parser reports `message`.
    final func stop(_ message: String) {
        guard failure == nil else { return }
        failure = (lineNumber, message)
        if let parserContext { xmlStopParser(parserContext) }
    }
}
