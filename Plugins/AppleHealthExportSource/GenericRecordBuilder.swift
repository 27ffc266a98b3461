import HealthRouterCore

/// Collects an element with all its attributes and children, at any depth, as a
/// `GenericRecord` (`Me`, `ActivitySummary`, `ClinicalRecord`, `Audiogram`,
/// `VisionPrescription`, elements healthrouter does not know).
struct GenericRecordBuilder {
    private var open: [GenericRecord] = []
    /// The line the outermost element started on.
    private(set) var line = 0

    var isOpen: Bool { !open.isEmpty }

    mutating func start(element: String, attributes: [GenericRecord.Attribute], line: Int) {
        if open.isEmpty { self.line = line }
        open.append(GenericRecord(element: element, attributes: attributes))
    }

    /// Closes the innermost element; returns the outermost one when it closed.
    mutating func end() -> GenericRecord? {
        guard let finished = open.popLast() else { return nil }
        if open.isEmpty { return finished }
        open[open.count - 1].children.append(finished)
        return nil
    }
}
