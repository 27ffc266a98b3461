extension Journal {
    /// Gives `sample`, met again under its id with other content, the parts of its detail it comes
    /// without and its stored version `stored` has: the HRV beats, a
    /// correlation's members, a generic record (its attributes and children), a workout's events,
    /// statistics, activities and routes. Whether it gave any.
    ///
    /// Pulso's protocol carries none of these, and a healthrouter receiving from another one
    /// (`format: native`) does not read them back, so the same sample forwarded again would be a
    /// change without them, and every sink would replace the parts it holds with none. HealthKit
    /// samples do not change; a producer that knows the parts sends them, and they count.
    ///
    /// A stored entry pruned by `journal.retain` cannot help: the sample is then a change, as
    /// any other.
    func restoreOmittedDetail(of sample: inout Sample, from stored: Sample) -> Bool {
        guard stored.kind == sample.kind else { return false }
        switch (sample.detail, stored.detail) {
        case (.none, .none):
            return false
        case (.none, let kept):
            sample.detail = kept
            return true
        case (.workout(var workout), .workout(let storedWorkout)):
            var restored = false
            func keep<Part>(_ part: WritableKeyPath<Workout, [Part]>) {
                if workout[keyPath: part].isEmpty && !storedWorkout[keyPath: part].isEmpty {
                    workout[keyPath: part] = storedWorkout[keyPath: part]
                    restored = true
                }
            }
            keep(\.events)
            keep(\.statistics)
            keep(\.activities)
            keep(\.routes)
            if restored { sample.detail = .workout(workout) }
            return restored
        default:
            return false
        }
    }
}
