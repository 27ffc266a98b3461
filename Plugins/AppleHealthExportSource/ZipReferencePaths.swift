import Foundation

/// The paths of a zip's entries that export.xml's file references (`/workout-routes/….gpx`,
/// `/clinical-records/….json`) may name. A reference is relative to the folder export.xml is in
/// (`dataFolder`); one not there is the entry of that file name, when only one entry has it (a
/// zip someone repacked with other folders), unless it climbs out of its folder (`/../x.json`):
/// that one names nothing, as beside an unpacked export it is not followed.
struct ZipReferencePaths {
    /// The folder inside the archive export.xml is in (`apple_health_export/`).
    var dataFolder = ""
    private var pathsByFileName: [String: [String]] = [:]

    /// Notes the entry at `path`.
    mutating func add(_ path: String) {
        pathsByFileName[(path as NSString).lastPathComponent, default: []].append(path)
    }

    /// The path of the entry `reference` names, given whether an entry `isKept` at a path.
    func path(of reference: String, isKept: (String) -> Bool) -> String {
        let relative = reference.hasPrefix("/") ? String(reference.dropFirst()) : reference
        let path = dataFolder + relative
        if !isKept(path), !relative.split(separator: "/").contains(".."), let candidates = pathsByFileName[(relative as NSString).lastPathComponent], candidates.count == 1 {
            return candidates[0]
        }
        return path
    }
}
