import Foundation
import CLibXML2

/// A libxml2 SAX2 push parser: bytes go in with `parse(_:)` in chunks of any size,
/// element events come out at the `SAXHandler`.
///
/// Options: XML_PARSE_HUGE (no size limits), XML_PARSE_NONET; never NOENT or DTDLOAD,
/// so no external entity is ever loaded. Errors are not printed: a fatal one ends the
/// parse and is returned as `SAXParseFailure` with its line.
///
/// XML_PARSE_HUGE also lifts libxml2's limit on the bytes it holds while it waits for the end
/// of a tag (`XML_MAX_LOOKUP_LIMIT`): a tag that never ends (an attribute value of gigabytes,
/// a few MiB of zip) would be held whole, and looked through again at every chunk. This parser
/// sets its own, `longestPendingInput`: past it, the parse fails at that line.
final class SAXPushParser {
    /// The most bytes libxml2 may hold unparsed, waiting for the rest of a tag. The Health app's
    /// longest tags are a few KiB (the DOCTYPE with its DTD, about 10); 1 MiB is 100 times that.
    /// libxml2 2.9 checks each attribute of a tag against all those before it: the 70,000 a MiB can
    /// hold take a few seconds, the million of 16 MiB took minutes.
    static let longestPendingInput = 1 << 20

    private let context: xmlParserCtxtPtr
    private let handler: SAXHandler

    init(handler: SAXHandler, documentName: String) {
        _ = Self.initializeLibrary
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
            Unmanaged<SAXHandler>.fromOpaque(context!).takeUnretainedValue()
                .startElement(localName!, SAXAttributes(base: attributes, count: Int(attributeCount)))
        }
        sax.endElementNs = { context, localName, _, _ in
            Unmanaged<SAXHandler>.fromOpaque(context!).takeUnretainedValue().endElement(localName!)
        }
        if handler.wantsCharacters {
            sax.characters = { context, text, length in
                Unmanaged<SAXHandler>.fromOpaque(context!).takeUnretainedValue()
                    .characters(UnsafeBufferPointer(start: text, count: Int(length)))
            }
        }
        // A structured error callback keeps libxml2 from printing to standard error;
        // the error itself is read back with xmlCtxtGetLastError.
        sax.serror = { _, _ in }
        self.handler = handler
        context = documentName.withCString { name in
            xmlCreatePushParserCtxt(&sax, Unmanaged.passUnretained(handler).toOpaque(), nil, 0, name)
        }
        let options = XML_PARSE_HUGE.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
            | XML_PARSE_NOWARNING.rawValue
        xmlCtxtUseOptions(context, Int32(options))
        handler.parserContext = context
    }

    deinit {
        handler.parserContext = nil
        xmlFreeParserCtxt(context)
    }

    /// libxml2's global state must be set up once before parsers run on several threads.
    private static let initializeLibrary: Void = xmlInitParser()

    /// Parses `bytes`; with `final`, also checks the document is complete.
    /// Returns the failure that ended the parse, if any; after one, further calls do nothing.
    func parse(_ bytes: UnsafeRawBufferPointer, final: Bool = false) -> SAXParseFailure? {
        if let overlong { return overlong }
        let chunk = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        _ = xmlParseChunk(context, chunk, Int32(bytes.count), final ? 1 : 0)
        if let failure = failure(atEnd: final) { return failure }
        if pendingInput > Self.longestPendingInput {
            overlong = SAXParseFailure(line: lineNumber, message: "more than \(Self.longestPendingInput >> 20) MiB without the end of the tag, "
                                           + "comment or declaration that starts here (no Health export has one so long)",
                                       raisedByHandler: false, atEnd: false)
            xmlStopParser(context)
        }
        return overlong
    }

    /// Set when libxml2 held more than `longestPendingInput` bytes: the parse ended there.
    private var overlong: SAXParseFailure?

    /// The bytes libxml2 holds that it has not parsed yet.
    private var pendingInput: Int {
        guard let input = context.pointee.input, let current = input.pointee.cur, let end = input.pointee.end else { return 0 }
        return current.distance(to: end)
    }

    /// The current line (1-based).
    var lineNumber: Int { Int(xmlSAX2GetLineNumber(context)) }

    private func failure(atEnd: Bool) -> SAXParseFailure? {
        if let stopped = handler.failure {
            return SAXParseFailure(line: stopped.line, message: stopped.message, raisedByHandler: true, atEnd: false)
        }
        guard context.pointee.wellFormed == 0 else { return nil }
        var line = lineNumber
        var message = "the XML is not well-formed"
        if let error = xmlCtxtGetLastError(context) {
            if error.pointee.line > 0 { line = Int(error.pointee.line) }
            if let text = error.pointee.message {
                message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return SAXParseFailure(line: line, message: message, raisedByHandler: false, atEnd: atEnd)
    }
}

/// Why a `SAXPushParser` stopped.
struct SAXParseFailure: Error {
    var line: Int
    /// libxml2's message, or the handler's.
    var message: String
    /// The handler stopped the parse (the document is well-formed but not what it expects).
    var raisedByHandler: Bool
    /// The failure came when the input ended (a truncated document).
    var atEnd: Bool
}
