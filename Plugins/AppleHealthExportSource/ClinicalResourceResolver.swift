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
    case found(String)
    case missing
    case refused
}

/// For an export without its clinical-record files at hand.
final class NoClinicalResources: ClinicalResourceResolver {
    func resource(forReference reference: String) -> ClinicalResourceLookup { .missing }
}
