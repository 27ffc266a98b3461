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

    /// Whether `sample` is a clinical record read without its FHIR resource (no last child
    /// `GenericRecord.fhirResourceElement`), which `restoreFHIRResource` may give it.
    static func lacksFHIRResource(_ sample: Sample) -> Bool {
        guard case .record(let record) = sample.detail, record.element == "ClinicalRecord" else { return false }
        return record.children.last?.element != GenericRecord.fhirResourceElement
    }

    /// Gives a clinical record read without its FHIR resource file (a bare export.xml imported after
    /// its export.zip) the resource of its stored version `stored`, when the rest of the record is
    /// the same. Whether it gave it. Without this, such an import would be a change of every
    /// clinical record, and each sink would replace its resource with none. Its id is the content
    /// id of the element without the resource, so `stored` is the same record, not a twin.
    func restoreFHIRResource(of sample: inout Sample, from stored: Sample) -> Bool {
        guard case .record(var record) = sample.detail, case .record(let storedRecord) = stored.detail,
              let resource = storedRecord.children.last, resource.element == GenericRecord.fhirResourceElement,
              record.element == storedRecord.element, record.attributes == storedRecord.attributes,
              record.children[...] == storedRecord.children.dropLast() else { return false }
        record.children.append(resource)
        sample.detail = .record(record)
        return true
    }
}
