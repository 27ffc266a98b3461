import HealthRouterCore

/// Finds the FHIR resource (a JSON file, `clinical-records/Observation-….json`) a `ClinicalRecord`'s
/// `resourceFilePath` names.
protocol ClinicalResourceResolver: AnyObject {
    /// The file's text for `reference` (`/clinical-records/Observation-….json`, relative to the
    /// folder export.xml is in); `.missing` when the export has no such file; `.refused` when the
    /// resolver did not read it and said why (`SourceOutput.skipped`).
    func resource(forReference reference: String) -> ClinicalResourceLookup
}

enum ClinicalResourceLookup {
    /// The file's text.
    case found(String)
    /// The export has no such file.
    case missing
    /// There, but not read (outside the export's folder, not a regular file, too large, damaged):
    /// the resolver said why.
    case refused
}
