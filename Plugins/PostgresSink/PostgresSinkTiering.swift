import HealthRouterCore
import PostgresClient

/// Tiering (`summarize_after`): folding old raw rows into daily summaries, and taking a deleted
/// sample back out of its day's summary.
extension PostgresSink {
    /// Folds raw quantity rows of days (in `time_zone`) that ended more than `summarize_after` ago
    /// into `healthkit_daily_summaries` and deletes them, in one statement: the summary of a day
    /// that already has one is merged with the late rows (counts and sums added, extremes kept,
    /// the average recomputed), so late data re-summarizes its day instead of being lost. The ids
    /// folded are kept in `healthkit_summarized_ids`, with their day, type, unit, value and raw key: a
    /// row of an id folded before (a sample delivered again: a backfill, a migration), or of another
    /// id under a key folded before (two samples that shared one raw row, in different batches), is
    /// deleted without being counted again, and a tombstone can take the value back out (`unsummarize`). An
    /// extreme a tombstone left unknown (NULL while `sample_count` > 0) stays unknown when late rows
    /// are merged. Category, workout and `record` rows stay raw (health4ai reads them raw; records
    /// have no value).
    func summarize(_ connection: PostgresConnection) throws {
        guard let after = configuration.summarizeAfter else { return }
        let metrics = schema.name("healthkit_metrics")
        let summaries = schema.name("healthkit_daily_summaries")
        let sql = """
            WITH cutoff AS (
              SELECT (date_trunc('day', (now() - make_interval(secs => $2::float8)) AT TIME ZONE $1) AT TIME ZONE $1) AS at),
            gone AS (
              DELETE FROM \(metrics) m USING cutoff c
              WHERE m.started_at < c.at AND \(Self.foldable)
              RETURNING m.id, m.user_id, m.metric_type, (m.started_at AT TIME ZONE $1)::date AS day, m.value,
                        coalesce(m.unit, '') AS unit, \(PostgresSinkSchema.rawKey(of: "m")) AS raw_key),
            first_time AS (
              INSERT INTO \(schema.name("healthkit_summarized_ids")) (id, user_id, metric_type, summary_date, unit, value, raw_key)
              SELECT id, user_id, metric_type, day, unit, value, raw_key FROM gone
              ON CONFLICT DO NOTHING RETURNING id),
            days AS (
              SELECT user_id, metric_type, day, unit, avg(value) AS avg_value, min(value) AS min_value, max(value) AS max_value,
                     sum(value) AS sum_value, count(value)::integer AS sample_count
              FROM gone JOIN first_time USING (id) GROUP BY user_id, metric_type, day, unit)
            INSERT INTO \(summaries) AS s (user_id, metric_type, summary_date, unit, avg_value, min_value, max_value,
                                          sum_value, sample_count)
            SELECT user_id, metric_type, day, unit, avg_value, min_value, max_value, sum_value, sample_count FROM days
            ON CONFLICT (user_id, metric_type, summary_date, unit) DO UPDATE SET
              sum_value = coalesce(s.sum_value, 0) + coalesce(EXCLUDED.sum_value, 0),
              sample_count = coalesce(s.sample_count, 0) + EXCLUDED.sample_count,
              min_value = CASE WHEN s.min_value IS NULL AND coalesce(s.sample_count, 0) > 0 THEN NULL
                               ELSE least(s.min_value, EXCLUDED.min_value) END,
              max_value = CASE WHEN s.max_value IS NULL AND coalesce(s.sample_count, 0) > 0 THEN NULL
                               ELSE greatest(s.max_value, EXCLUDED.max_value) END,
              avg_value = (coalesce(s.sum_value, 0) + coalesce(EXCLUDED.sum_value, 0))
                          / nullif(coalesce(s.sample_count, 0) + EXCLUDED.sample_count, 0)
            """
        try connection.query(sql, [configuration.timeZone, String(after.seconds)])
    }

    /// Takes the samples of `uuids` (as stored in `id`) that were folded out of their day's summary:
    /// their values are subtracted from `sum_value` and `sample_count` and the average recomputed.
    /// An extreme equal to a removed value is recomputed from the values kept in
    /// `healthkit_summarized_ids` when they are all the day's samples, and set to NULL (unknown)
    /// otherwise. Their rows in `healthkit_summarized_ids` are deleted, so a tombstone delivered again
    /// subtracts nothing. An id folded before values were kept (no day stored) cannot be subtracted:
    /// it is logged as a warning and its summary left as it is.
    func unsummarize(_ uuids: [String], on connection: PostgresConnection) throws {
        let ids = schema.name("healthkit_summarized_ids")
        // `kept` reads the table as it was before `removed` (one snapshot for the whole statement):
        // hence the removed ids left out by hand.
        let sql = """
            WITH removed AS (
              DELETE FROM \(ids) WHERE id = ANY($1::uuid[])
              RETURNING id, user_id, metric_type, summary_date, unit, value),
            gone AS (
              SELECT user_id, metric_type, summary_date, unit, sum(value) AS sum_value, count(value)::integer AS sample_count,
                     min(value) AS min_value, max(value) AS max_value
              FROM removed WHERE summary_date IS NOT NULL AND value IS NOT NULL GROUP BY 1, 2, 3, 4),
            kept AS (
              SELECT g.user_id, g.metric_type, g.summary_date, g.unit, k.known, k.min_value, k.max_value FROM gone g,
                LATERAL (SELECT count(i.value)::integer AS known, min(i.value) AS min_value, max(i.value) AS max_value
                         FROM \(ids) i WHERE i.user_id = g.user_id AND i.metric_type = g.metric_type
                           AND i.summary_date = g.summary_date AND i.unit = g.unit AND i.id <> ALL($1::uuid[])) k),
            updated AS (
              UPDATE \(schema.name("healthkit_daily_summaries")) s SET
                sum_value = s.sum_value - g.sum_value,
                sample_count = s.sample_count - g.sample_count,
                avg_value = (s.sum_value - g.sum_value) / nullif(s.sample_count - g.sample_count, 0),
                min_value = CASE WHEN k.known = s.sample_count - g.sample_count THEN k.min_value
                                 WHEN s.min_value < g.min_value THEN s.min_value END,
                max_value = CASE WHEN k.known = s.sample_count - g.sample_count THEN k.max_value
                                 WHEN s.max_value > g.max_value THEN s.max_value END
              FROM gone g JOIN kept k USING (user_id, metric_type, summary_date, unit)
              WHERE s.user_id = g.user_id AND s.metric_type = g.metric_type AND s.summary_date = g.summary_date
                AND s.unit = g.unit
              RETURNING 1)
            SELECT id::text FROM removed WHERE summary_date IS NULL
            """
        let unknown = try connection.query(sql, [SQL.textArray(uuids)])
        for row in 0..<unknown.rowCount {
            logger.warning("tombstone for \(unknown.text(row, 0) ?? ""): its sample was folded into healthkit_daily_summaries "
                               + "before this version kept folded values, so its day's summary still counts it")
        }
    }
}
