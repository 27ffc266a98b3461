import HealthRouterCore

/// Finds the points of the GPX file a `WorkoutRoute`'s `FileReference` names.
protocol RouteFileResolver: AnyObject {
    /// The points of `reference` (`/workout-routes/route_2019-06-11_3.00pm.gpx`, relative to
    /// the folder export.xml is in); `.missing` when the export has no such file.
    func points(forReference reference: String) -> RouteLookup
}

enum RouteLookup {
    case found([RoutePoint])
    case missing
    /// There, but not read (outside the export's folder, not a regular file): the resolver said why.
    case refused
}
