extension Journal {
    /// Gives the routes of `workout` that come without points (their GPX file was not in this
    /// import: a bare export.xml imported after its export.zip) the points the stored version
    /// under the same id has for the same file, read from its journal entry at `storedSequence`.
    /// Whether any route got points. Without this, such an import would be a change of every
    /// workout with a route, and each sink would replace its points with none.
    ///
    /// A stored entry pruned by `journal.retain` cannot help: the workout is then a change, as
    /// any other.
    func restoreRoutePoints(of workout: inout Workout, storedSequence: Int64) throws -> Bool {
        guard workout.routes.contains(where: { $0.filePath != nil && $0.points.isEmpty }) else { return false }
        let read = try database.prepare("SELECT payload FROM entries WHERE seq = ?1")
        read.bind(1, storedSequence)
        guard try read.step(), let payload = read.blob(0),
              case .sample(let stored) = try SampleCodec.decode(payload),
              case .workout(let storedWorkout) = stored.detail else { return false }
        var pointsByFile: [String: [RoutePoint]] = [:]
        for route in storedWorkout.routes where !route.points.isEmpty {
            if let path = route.filePath { pointsByFile[path] = route.points }
        }
        var restored = false
        for index in workout.routes.indices where workout.routes[index].points.isEmpty {
            guard let path = workout.routes[index].filePath, let points = pointsByFile[path] else { continue }
            workout.routes[index].points = points
            restored = true
        }
        return restored
    }
}
