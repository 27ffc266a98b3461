import HealthRouterCore

/// Finds the FHIR resource (a JSON file, `clinical-records/Observation-….json`) a `ClinicalRecord`'s
/// `resourceFilePath` names.
///
/// Contract: called on the parser's thread, during the parse of export.xml, once for each
/// `ClinicalRecord` that names a file, and may block on file I/O (the folder's file, or a zip's
/// file kept in a temporary file by the first pass over the archive). A resolver may note which
/// references were asked for (the files no record references are reported after the parse).
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
