import Foundation
import Testing
@testable import AppleHealthExportSource

/// The byte-level helpers of the parser.
@Suite struct ByteLevelTests {
    private func number(_ text: String, comma: Bool = false) -> Double? {
        var copy = text
        return copy.withUTF8 { DecimalNumber.parse($0, decimalComma: comma) }
    }

    private func metadataNumber(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { DecimalNumber.parsePlainMetadataNumber($0) }
    }

    @Test func decimalNumbers() {
        #expect(number("72") == 72)
        #expect(number("-0.5") == -0.5)
        #expect(number("0.96") == 0.96)
        #expect(number("1.2e3") == 1200)
        #expect(number(" 12 ") == 12)
        #expect(number("3.141592653589793238") == 3.141592653589793)
        #expect(number("12345678901234567890") == 12345678901234567890.0)
        #expect(number("62,5") == nil)
        #expect(number("62,5", comma: true) == 62.5)
        #expect(number("56 degF") == nil)
        #expect(number("") == nil)
        #expect(number("-") == nil)
        #expect(number("nan") == nil)
        for notFinite in ["NaN", "inf", "-Infinity", "1e999", "-2e308", "1" + String(repeating: "0", count: 400)] {
            #expect(number(notFinite) == nil, "\(notFinite)")
        }
        #expect(number("1e-999") == 0)
        #expect(["1e999", "-2e308", " 1e400 "].allSatisfy { var copy = $0; return copy.withUTF8 { DecimalNumber.isOutOfRange($0) } })
        #expect(!["NaN", "inf", "lots", "1e300", "1e999 m"].contains { var copy = $0; return copy.withUTF8 { DecimalNumber.isOutOfRange($0) } })
        #expect(number("1.7976931348623157e308") == .greatestFiniteMagnitude)
        #expect(metadataNumber("0") == 0)
        #expect(metadataNumber("-3.5") == -3.5)
        #expect(metadataNumber("007") == nil)
        #expect(metadataNumber("12E3") == nil)
        #expect(metadataNumber("1.") == nil)
        #expect(metadataNumber("12345678901234567") == nil)
        #expect(metadataNumber("96 %") == nil)
    }

    @Test func internerSharesAndBounds() {
        var interner = ByteStringInterner(maximumEntries: 3)
        func intern(_ text: String) -> Int {
            var copy = text
            return copy.withUTF8 { interner.intern($0) }
        }
        #expect(intern("a") == 0)
        #expect(intern("b&#38;c") == 1)
        #expect(intern("a") == 0)
        #expect(interner.string(at: 1) == "b&c")
        #expect(intern("c") == 2)
        #expect(interner.generation == 0)
        #expect(intern("d") == 0)
        #expect(interner.generation == 1)
        #expect(interner.string(at: 0) == "d")
        // What was returned just before the restart is not handed out again by its old number.
        #expect(intern("c") == 1 && interner.string(at: 1) == "c")
        #expect(intern("d") == 0)
        #expect(intern("c") == 1)
        var big = ByteStringInterner()
        for index in 0..<5000 {
            var text = "value \(index)"
            _ = text.withUTF8 { big.intern($0) }
        }
        var probe = "value 4321"
        let entry = probe.withUTF8 { big.intern($0) }
        #expect(entry == 4321)
        #expect(big.count == 5000)
    }

    @Test func attributeTextDecodesTheAmpersandReference() {
        func decode(_ text: String) -> String {
            var copy = text
            return copy.withUTF8 { AttributeText.string($0) }
        }
        #expect(decode("A &#38; B") == "A & B")
        #expect(decode("&#38;#38;") == "&#38;")
        #expect(decode("&#3") == "&#3")
        #expect(decode("plain") == "plain")
    }

    @Test func filterBlanksTheDoctypeWhateverTheChunking() throws {
        let text = "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE HealthData [\n<!ATTLIST A\n x CDATA #IMPLIED\n<!-- ]> -->\n>\n]>\n<HealthData a=\"x\u{0B}y\"/>\n"
        let expected = Array(text.utf8).map { $0 == 0x0B ? 0x20 : $0 }
        for chunkSize in [1, 2, 3, 7, 64, 4096] {
            var filter = ExportByteFilter()
            var delivered: [UInt8] = []
            var bytes = Array(text.utf8)
            let total = bytes.count
            var offset = 0
            while offset <= total {
                let end = min(offset + chunkSize, total)
                bytes.withUnsafeMutableBytes { buffer in
                    let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<end])
                    filter.filter(chunk, isLast: end == total) { delivered.append(contentsOf: $0) }
                }
                if end == total { break }
                offset = end
            }
            #expect(filter.removedDoctype)
            #expect(delivered.count == expected.count)
            let output = String(decoding: delivered, as: UTF8.self)
            #expect(!output.contains("DOCTYPE"))
            #expect(!output.contains("ATTLIST"))
            #expect(output.split(separator: "\n", omittingEmptySubsequences: false).count
                    == text.split(separator: "\n", omittingEmptySubsequences: false).count)
            #expect(output.hasSuffix("<HealthData a=\"x y\"/>\n"))
            #expect(output.hasPrefix("<?xml version=\"1.0\"?>\n<!-- c -->\n"))
        }
    }

    /// A CR that no LF follows becomes an LF, so that libxml2, which counts LFs, numbers the lines
    /// of an old Mac's file (`\r` alone) as they are; a CR LF stays one line end, also when a chunk
    /// cuts it in two (its LF is then left out), and so does an LF alone.
    @Test func aCarriageReturnAloneBecomesALineFeedWhateverTheChunking() {
        let text = "<?xml version=\"1.0\"?>\r<!DOCTYPE HealthData [\r<!ATTLIST A x CDATA #IMPLIED>\r\n]>\r<HealthData>\r\n"
            + " <A x=\"1\r2\"/>\n\r\r\n <B/>\r\r</HealthData>\r"
        // Line ends: CR alone → LF; CR LF → CR LF (or LF, when cut): one line end either way.
        let lineEnds = 12
        for chunkSize in [1, 2, 3, 5, 8, 9, 16, 4096] {
            var filter = ExportByteFilter()
            var delivered: [UInt8] = []
            var bytes = Array(text.utf8)
            let total = bytes.count
            var offset = 0
            while offset < total {
                let end = min(offset + chunkSize, total)
                bytes.withUnsafeMutableBytes { buffer in
                    filter.filter(UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<end]), isLast: end == total) {
                        delivered.append(contentsOf: $0)
                    }
                }
                offset = end
            }
            let output = String(decoding: delivered, as: UTF8.self)
            #expect(delivered.filter { $0 == 0x0A }.count == lineEnds, "chunks of \(chunkSize): \(output.debugDescription)")
            // Every CR left is followed by its LF.
            #expect(!output.replacingOccurrences(of: "\r\n", with: "").contains("\r"), "chunks of \(chunkSize)")
            #expect(output.replacingOccurrences(of: "\r\n", with: "\n").hasSuffix(
                "<HealthData>\n <A x=\"1\n2\"/>\n\n\n <B/>\n\n</HealthData>\n"), "chunks of \(chunkSize): \(output.debugDescription)")
            #expect(filter.removedDoctype)
        }
    }

    @Test func filterPassesDocumentsWithoutDoctype() {
        var filter = ExportByteFilter()
        var bytes = Array("<HealthData/>".utf8)
        var delivered: [UInt8] = []
        bytes.withUnsafeMutableBytes { buffer in
            filter.filter(buffer, isLast: false) { delivered.append(contentsOf: $0) }
        }
        #expect(delivered == Array("<HealthData/>".utf8))
        #expect(!filter.removedDoctype)
    }
}

@Suite struct ControlCharacterTests {
    @Test func everyForbiddenControlByteBecomesASpaceAtAnyOffset() {
        for length in 0..<40 {
            for position in 0..<max(length, 1) where length > 0 {
                for byte: UInt8 in [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x20, 0x7F, 0x80, 0xE2] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    _ = bytes.withUnsafeMutableBytes { ExportByteFilter.replaceControlCharacters($0) }
                    let allowed = byte >= 0x20 || byte == 0x09 || byte == 0x0A
                    // A CR that no LF follows is an LF (here none does).
                    #expect(bytes[position] == (byte == 0x0D ? 0x0A : allowed ? byte : 0x20))
                    #expect(bytes.enumerated().allSatisfy { $0.offset == position || $0.element == UInt8(ascii: "a") })
                }
            }
        }
    }
}

@Suite struct ForbiddenCharacterReferenceTests {
    private func repaired(_ text: String) -> String {
        var bytes = Array(text.utf8)
        let ready = bytes.withUnsafeMutableBufferPointer {
            ForbiddenCharacterReference.rewriteAll($0.baseAddress!, count: $0.count, atEnd: true)
        }
        #expect(ready == bytes.count)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func forbiddenReferencesBecomeASpaceOfTheSameLength() {
        let cases = [
            ("a&#11;b", "a&#32;b"), ("&#x0B;", "&#032;"), ("&#xB;", "&#32;"), ("&#xb;", "&#32;"),
            ("&#1;", "    "), ("&#0;", "    "), ("&#00011;", "&#00032;"), ("&#x0000000B;", "&#000000032;"),
            ("&#55357;&#56832;", "&#00032;&#00032;"), ("&#xFFFE;", "&#00032;"), ("&#1114112;", "&#0000032;"),
            ("&#99999999;", "&#00000032;"),
        ]
        for (input, output) in cases {
            #expect(repaired(input) == output, "\(input)")
            #expect(output.utf8.count == input.utf8.count)
        }
        // Allowed references, entities, malformed or overlong ones are libxml2's to judge.
        for untouched in ["&#9;", "&#10;", "&#13;", "&#32;", "&#38;", "&#xD7FF;", "&#x1F600;", "&#;", "&#x;", "&#X0B;",
                          "&amp;", "&lt;&#", "&#0000000000011;", "&#1a;", "&", "a&#", "&#x"] {
            #expect(repaired(untouched) == untouched, "\(untouched)")
        }
    }

    @Test func aReferenceCutByTheChunkIsRepairedWhateverTheSplit() {
        let text = "<HealthData a=\"x&#11;y&#x0B;z&#1;&amp;&#38;&#55357;\">&#31;&#x0000000B;</HealthData>&#2;"
        let expected = "<HealthData a=\"x&#32;y&#032;z    &amp;&#38;&#00032;\">&#32;&#000000032;</HealthData>    "
        func run(_ splits: [Int]) -> String {
            var filter = ExportByteFilter()
            var bytes = Array(text.utf8)
            var delivered: [UInt8] = []
            var bounds = [0] + splits + [bytes.count]
            bounds = bounds.sorted()
            for (start, end) in zip(bounds, bounds.dropFirst()) {
                bytes.withUnsafeMutableBytes { buffer in
                    let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<end])
                    filter.filter(chunk, isLast: end == bounds.last) { delivered.append(contentsOf: $0) }
                }
            }
            return String(decoding: delivered, as: UTF8.self)
        }
        let count = text.utf8.count
        for first in 0...count {
            #expect(run([first]) == expected, "split at \(first)")
        }
        for size in 1...5 {
            #expect(run(Array(stride(from: size, to: count, by: size))) == expected, "chunks of \(size)")
        }
        // A chunk that ends inside a reference which the document's end then leaves unfinished.
        var filter = ExportByteFilter()
        var bytes = Array("<a/>&#1".utf8)
        var delivered: [UInt8] = []
        bytes.withUnsafeMutableBytes { filter.filter($0, isLast: false) { delivered.append(contentsOf: $0) } }
        #expect(delivered == Array("<a/>".utf8))
        bytes = []
        bytes.withUnsafeMutableBytes { filter.filter($0, isLast: true) { delivered.append(contentsOf: $0) } }
        #expect(String(decoding: delivered, as: UTF8.self) == "<a/>&#1")
    }
}
