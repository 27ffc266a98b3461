import HealthRouterCore

/// Finds the points of the GPX file a `WorkoutRoute`'s `FileReference` names.
///
/// Contract: called on the parser's thread, during the parse of export.xml, once for each
/// `FileReference` (the same reference may come again, from another workout), and may block on
/// file I/O (a folder's GPX file, the zip's points spooled to a temporary file). A resolver may
/// note which references were asked for (a zip's GPX files no workout references are reported
/// after the parse).
protocol RouteFileResolver: AnyObject {
    /// The points of `reference` (`/workout-routes/route_2019-06-11_3.00pm.gpx`, relative to
    /// the folder export.xml is in); `.missing` when the export has no such file; `.refused`
    /// when the resolver did not read it and said why (`SourceOutput.skipped`); `.exhausted` when
    /// the file gave its points to `RouteFileUses.maximum` references before (the caller says so).
    func points(forReference reference: String) -> RouteLookup
}

enum RouteLookup {
    case found([RoutePoint])
    case missing
    /// There, but not read (outside the export's folder, not a regular file): the resolver said
    /// why (`SourceOutput.skipped`).
    case refused
    /// There, but it gave its points to `RouteFileUses.maximum` references already (a crafted
    /// export naming one file from thousands of workouts): not read again.
    case exhausted
}
