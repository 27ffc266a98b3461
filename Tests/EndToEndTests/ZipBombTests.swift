import TestSupport
import Foundation
import Testing

/// A small export.zip that expands to far more than it holds (a zip bomb) is read in the memory
/// an export of its size takes: the real binary runs under `ulimit -v`, which a process holding
/// what the zip expands to would pass.
@Suite struct ZipBombTests {
    /// A GPX file whose `<time>` holds 512 MiB of text (half a MiB of zip): the text of a field is
    /// kept up to 1 KiB, the point reported without a valid time, and the import ends in its
    /// summary; it kept the whole text (and a copy of it while it grew), and died of it.
    ///
    /// Left out of a sanitizer build (`SanitizerBuild`): AddressSanitizer and ThreadSanitizer reserve
    /// terabytes of address space for their shadow memory, which no `ulimit -v` holds (ASan cannot map
    /// it and exits 1; TSan re-execs without the limit, cannot raise it, and exits 66).
    @Test(.disabled(if: SanitizerBuild.name != nil,
                    "ulimit -v cannot hold a sanitizer build (AddressSanitizer's or ThreadSanitizer's shadow memory)"))
    func aGPXFieldOfHalfAGigabyteIsNotHeldInMemory() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 50, to: directory + "/small.zip", zip: true, quirks: false)
        let zip = directory + "/export.zip"
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Every entry of the small export, then the GPX file its first route names, again, with the bomb.
        copy.arguments = ["python3", "-c", """
            import sys, zipfile
            source = zipfile.ZipFile(sys.argv[1])
            routes = [n for n in source.namelist() if n.endswith(".gpx")]
            with zipfile.ZipFile(sys.argv[2], "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in source.namelist():
                    if name != routes[0]:
                        archive.writestr(name, source.read(name))
                info = zipfile.ZipInfo(routes[0], (2022, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with archive.open(info, "w", force_zip64=True) as out:
                    out.write(b'<?xml version="1.0"?><gpx><trk><trkseg><trkpt lat="52.5" lon="13.4"><time>')
                    block = b"2" * (1 << 20)
                    for _ in range(512):
                        out.write(block)
                    out.write(b"</time></trkpt></trkseg></trk></gpx>")
            """, directory + "/small.zip", zip]
        try copy.run()
        copy.waitUntilExit()
        #expect(copy.terminationStatus == 0)

        let result = try CommandRunner.run(["import", zip], in: directory, shellSetup: "ulimit -v 500000")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 × GPX track point without a valid time, latitude or longitude, first at entry "),
                "\(result.stdout)")
        #expect(result.stdout.contains("caught up"), "\(result.stdout)")
    }
}
