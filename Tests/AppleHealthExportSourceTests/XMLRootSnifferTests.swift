import Foundation
import Testing
@testable import AppleHealthExportSource

/// The root element's name from a file's first bytes: past declarations, comments and a DTD;
/// nothing when the bytes end first.
@Suite struct XMLRootSnifferTests {
    func root(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { XMLRootSniffer.root($0)?.name }
    }

    @Test func findsTheFirstStartTag() {
        #expect(root("<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">") == "HealthData")
        #expect(root("<!DOCTYPE html>\n<!-- <HealthData> a <b> -->\n<html lang=\"en\">") == "html")
        #expect(root("<svg/>") == "svg")
        #expect(root("<?xml-stylesheet href=\"a.xsl\"?><rss\nversion=\"2.0\">") == "rss")
        // A DOCTYPE with an internal subset reads as the declarations it holds.
        #expect(root("<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me)>\n<!ATTLIST HealthData locale CDATA #REQUIRED>\n]>\n<HealthData>")
                == "HealthData")
    }

    @Test func nothingWhenTheBytesEndFirst() {
        #expect(root("") == nil)
        #expect(root("<?xml version=\"1.0\"?>\n<Health") == nil)
        #expect(root("<!-- a comment that goes on") == nil)
        #expect(root("<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me)") == nil)
        #expect(root("just text") == nil)
    }

    /// Every DTD the generator writes, the broken iOS 16 one too, leads to <HealthData>.
    @Test func generatedExportsAreHealthData() throws {
        let directory = try TemporaryDirectory()
        for quirks in [false, true] {
            let path = directory.file("export-\(quirks).xml")
            _ = try Fixtures.generate(records: 20, to: path, quirks: quirks)
            let head = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(ExportFile.sniffLength)
            #expect(head.withUnsafeBytes { XMLRootSniffer.root($0)?.name } == "HealthData", "quirks: \(quirks)")
            // And the file is taken: not refused before it is read.
            _ = try ExportFile(path: path)
        }
    }
}
