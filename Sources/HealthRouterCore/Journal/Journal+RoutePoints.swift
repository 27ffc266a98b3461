extension Journal {
    /// Gives the routes of `sample` (a workout) that come without points (their GPX file was not
    /// in this import: a bare export.xml imported after its export.zip) the points a stored
    /// workout has for the same file: first the stored version under the same id (`stored`, the
    /// entry at `storedSequence`), then the other workouts of its type stored at the same start second (a
    /// twin, stored under its twin id, holds its own route files). Whether any route got points.
    /// Without this, such an import would be a change of every workout with a route, and each
    /// sink would replace its points with none.
    ///
    /// A stored entry pruned by `journal.retain` cannot help: the workout is then a change, as
    /// any other.
    func restoreRoutePoints(of sample: inout Sample, stored: Sample?, storedSequence: Int64, start: Int64) throws -> Bool {
        guard case .workout(var workout) = sample.detail else { return false }
        var missing = Set(workout.routes.compactMap { $0.points.isEmpty ? $0.filePath : nil })
        guard !missing.isEmpty else { return false }
        var found: [String: [RoutePoint]] = [:]
        func take(_ stored: Sample?) {
            guard case .workout(let storedWorkout)? = stored?.detail else { return }
            for route in storedWorkout.routes where !route.points.isEmpty {
                if let path = route.filePath, missing.remove(path) != nil { found[path] = route.points }
            }
        }
        take(stored)
        if !missing.isEmpty {
            let sameStart = try database.prepare(
                "SELECT e.payload FROM sample_ids s JOIN entries e ON e.seq = s.seq WHERE s.start = ?1 AND s.seq <> ?2 AND e.type = ?3")
            sameStart.bind(1, start)
            sameStart.bind(2, storedSequence)
            sameStart.bind(3, sample.type)
            while !missing.isEmpty, try sameStart.step() {
                guard let payload = sameStart.blob(0), case .sample(let twin) = try SampleCodec.decode(payload) else { continue }
                take(twin)
            }
        }
        guard !found.isEmpty else { return false }
        for index in workout.routes.indices where workout.routes[index].points.isEmpty {
            if let path = workout.routes[index].filePath, let points = found[path] { workout.routes[index].points = points }
        }
        sample.detail = .workout(workout)
        return true
    }
}
