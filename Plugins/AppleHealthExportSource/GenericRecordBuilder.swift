import HealthRouterCore

/// Collects an element with all its attributes and children, at any depth, as a
/// `GenericRecord` (`Me`, `ActivitySummary`, `ClinicalRecord`, `Audiogram`,
/// `VisionPrescription`, elements healthrouter does not know).
struct GenericRecordBuilder {
    private var open: [GenericRecord] = []
    /// The line the outermost element started on.
    private(set) var line = 0
    /// How many elements below `maximumDepth` are open: read past, not kept.
    private var ignoredDepth = 0
    /// Whether the element being built had elements below `maximumDepth` (reset at its start).
    private(set) var wasCutAtMaximumDepth = false
    /// The elements kept of the one being built, itself included.
    private var elementsKept = 0
    /// Whether the element being built had more than `maximumElements` (reset at its start).
    private(set) var wasCutAtMaximumElements = false

    /// How deep a record's children are kept. Real records nest a few levels (a ClinicalRecord's
    /// FHIR resource a dozen); every reader of a record (its id, the journal's encoding, the stores'
    /// JSON) walks it recursively, so a hostile file 60,000 levels deep would overflow the stack.
    static let maximumDepth = 64
    /// How many elements a record keeps, all levels together. Real records have a few dozen (an
    /// audiogram's points); a hostile file of 2,000,000 children took 1.2 GB.
    static let maximumElements = 100_000

    var isOpen: Bool { !open.isEmpty }

    mutating func start(element: String, attributes: [GenericRecord.Attribute], line: Int) {
        if open.isEmpty {
            self.line = line
            wasCutAtMaximumDepth = false
            wasCutAtMaximumElements = false
            elementsKept = 0
        }
        guard ignoredDepth == 0, open.count < Self.maximumDepth, elementsKept < Self.maximumElements else {
            ignoredDepth += 1
            if open.count >= Self.maximumDepth { wasCutAtMaximumDepth = true } else if ignoredDepth == 1 { wasCutAtMaximumElements = true }
            return
        }
        elementsKept += 1
        open.append(GenericRecord(element: element, attributes: attributes))
    }

    /// Closes the innermost element; returns the outermost one when it closed.
    mutating func end() -> GenericRecord? {
        if ignoredDepth > 0 {
            ignoredDepth -= 1
            return nil
        }
        guard let finished = open.popLast() else { return nil }
        if open.isEmpty { return finished }
        open[open.count - 1].children.append(finished)
        return nil
    }
}
