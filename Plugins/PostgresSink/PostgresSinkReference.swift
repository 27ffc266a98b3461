import HealthRouterCore
import PostgresClient

/// What a plain `psql` load of the same rows needs, for scripts/bench-postgres.sh's reference: the
/// `healthkit_metrics` table definition (staging table, COPY, upsert) and the COPY rows the sink
/// stages for a sample, byte for byte. The reference then loads exactly the rows the sink writes.
public struct PostgresSinkReference {
    /// The table of schema `schema` the sink upserts samples into.
    public let table: PostgresUpsertTable
    private let userId: String
    private var json = JSONWriter(capacity: 1024)
    private var fields = JSONWriter(capacity: 256)

    public init(schema: String, userId: String) {
        table = PostgresSinkSchema(schema: schema).metrics
        self.userId = PostgresUserId.normalized(userId)
    }

    /// Appends the COPY row the sink stages for `sample` at journal sequence `sequence`.
    public mutating func append(_ sample: Sample, sequence: Int64, into rows: inout CopyTextWriter) {
        PostgresMetricRow.append(sample, sequence: sequence, defaultUserId: userId, json: &json, fields: &fields, into: &rows)
    }
}
