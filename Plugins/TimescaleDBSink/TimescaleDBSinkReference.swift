import HealthRouterCore
import PostgresClient

/// What a plain `psql` load of the same rows needs, for scripts/bench-postgres.sh's reference: the
/// `samples` table definition (staging table, COPY, upsert), the `sample_index` table the sink
/// fills beside it, and the COPY rows the sink stages for a quantity or category sample (not sleep),
/// byte for byte. The reference then loads exactly the rows the sink writes.
public struct TimescaleDBSinkReference {
    /// The table of schema `schema` the sink upserts quantity and category samples into.
    public let samples: PostgresUpsertTable
    /// The id → (table, start_at) lookup table, qualified.
    public let sampleIndex: String
    private var encoder: TimescaleDBRowEncoder

    public init(schema: String, userId: String?) {
        let tables = TimescaleDBSchema(schema: schema)
        samples = tables.samples
        sampleIndex = tables.name("sample_index")
        encoder = TimescaleDBRowEncoder(defaultUserId: userId)
    }

    /// Appends the COPY row the sink stages for `sample` (a quantity or category sample other than
    /// sleep, which go to `samples`) at journal sequence `sequence`.
    public mutating func append(_ sample: Sample, sequence: Int64, into rows: inout CopyTextWriter) {
        precondition(sample.kind != .workout && sample.type != "HKCategoryTypeIdentifierSleepAnalysis",
                     "the reference loads the samples table only")
        encoder.reset()
        encoder.append(sample, sequence: sequence)
        rows.appendRows(encoder.samples)
    }
}
