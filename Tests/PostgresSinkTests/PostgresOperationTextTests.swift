import Testing
@testable import PostgresClient

/// An error names what the statement did, not its first 80 characters cut mid-column-list.
@Suite struct PostgresOperationTextTests {
    @Test func aWriteIsNamedByItsVerbAndTable() {
        #expect(PostgresConnection.operation("INSERT INTO \"public\".\"healthkit_metrics\" AS t (\"id\", \"user_id\") SELECT 1")
                == "INSERT INTO \"public\".\"healthkit_metrics\"")
        #expect(PostgresConnection.operation("WITH up AS (INSERT INTO \"my schema\".\"samples\"(id) SELECT …), gone AS (…) SELECT 1")
                == "INSERT INTO \"my schema\".\"samples\"")
        #expect(PostgresConnection.operation("WITH gone AS (\n  DELETE FROM s.sample_index WHERE id = ANY($1)) SELECT 1")
                == "DELETE FROM s.sample_index")
        #expect(PostgresConnection.operation("COPY \"hr_stage_samples\" (\"id\") FROM STDIN") == "COPY \"hr_stage_samples\"")
        #expect(PostgresConnection.operation("UPDATE x.t SET a = 1") == "UPDATE x.t")
        #expect(PostgresConnection.operation("CREATE TABLE IF NOT EXISTS \"s\".\"t\" (a int)") == "CREATE TABLE IF NOT EXISTS \"s\".\"t\"")
    }
}
