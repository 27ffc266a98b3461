/// An element kept whole: its name, every attribute in document order, and its
/// children. Used for `Me`, `ActivitySummary`, `ClinicalRecord`, `Audiogram`,
/// `VisionPrescription` and elements healthrouter does not know, so that nothing
/// an export carries is dropped.
public struct GenericRecord: Sendable, Hashable {
    public var element: String
    public var attributes: [Attribute]
    public var children: [GenericRecord]

    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        /// The instant the value names when it is a date with a time (`receivedDate="2022-05-01
        /// 09:00:00 -0700"`); nil for anything else, a bare day (`1990-02-02`) included. What
        /// identifies a record across exports: the export writes the offset of its own day.
        public var instant: Timestamp? {
            // Not the compact form of iOS 8 and 9 (`20151107171924+0100`): an identifier may look like it.
            value.utf8.count >= 19 && value.utf8.dropFirst(4).first == UInt8(ascii: "-") ? HealthDateParser.parse(value) : nil
        }
    }

    /// The element of the child a `ClinicalRecord` gets for its FHIR resource (the JSON file its
    /// `resourceFilePath` names), whose `json` attribute is the file's text.
    public static let fhirResourceElement = "FHIRResource"

    public init(element: String, attributes: [Attribute] = [], children: [GenericRecord] = []) {
        self.element = element
        self.attributes = attributes
        self.children = children
    }

    /// The value of the first attribute named `name`.
    public subscript(attribute name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}
