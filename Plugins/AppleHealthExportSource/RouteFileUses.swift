/// How many `FileReference`s each route file gave its points to, so that one file cannot be
/// stored once for every workout that names it.
///
/// An export gives each workout route a GPX file of its own; a file is named by a few at most
/// (a workout the export lists twice, from two sources, names its file twice). A crafted
/// export.xml that names one file from thousands of workouts turned 61 KB of zip into 381 MB
/// of store: every workout took a copy of the points. Past `maximum`, a reference gets no
/// points (`RouteLookup.exhausted`).
struct RouteFileUses {
    /// The most references one route file gives its points to: twice the two of a duplicated
    /// workout, so that an export does not meet it, while what the stores take stays within four
    /// times what the route files hold (in a zip, these are at most 16 times its size).
    static let maximum = 4

    /// The uses of each file, by the path the resolver found it at (an entry's path in a zip, the
    /// real path of a file beside export.xml: two spellings of one file count together).
    private(set) var counts: [String: Int] = [:]

    /// Counts one more use of the file at `path`: false, and not counted, when it gave its points
    /// `maximum` times already.
    mutating func use(_ path: String) -> Bool {
        let used = counts[path, default: 0]
        guard used < Self.maximum else { return false }
        counts[path] = used + 1
        return true
    }

    /// Whether the file at `path` was used at all.
    func wasUsed(_ path: String) -> Bool { counts[path] != nil }
}
