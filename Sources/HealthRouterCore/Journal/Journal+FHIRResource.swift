extension Journal {
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
