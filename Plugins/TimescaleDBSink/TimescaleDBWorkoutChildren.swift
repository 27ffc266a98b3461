import PostgresClient

/// A workout's parts as rows of their own, as in the sqlite sink: `workout_events`,
/// `workout_statistics`, `workout_activities`, `workout_routes` and `workout_route_points`
/// (plain tables keyed by `workout_id`, in the producer's order). They are derived on the server
/// from the `detail` jsonb of the workout rows an upsert wrote, in the same statement, so an
/// unchanged re-delivery touches no child row and a changed workout gets its children anew.
struct TimescaleDBWorkoutChildren {
    let schema: String

    func name(_ table: String) -> String { SQL.qualified(schema, table) }

    static let tables = ["workout_events", "workout_statistics", "workout_activities", "workout_routes",
                         "workout_route_points"]

    var ddl: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(name("workout_events")) (workout_id text COLLATE \"C\" NOT NULL, activity_id text, "
                + "ordinal integer NOT NULL, type text NOT NULL, date_at timestamptz NOT NULL, duration_s double precision, "
                + "metadata jsonb)",
            "CREATE TABLE IF NOT EXISTS \(name("workout_statistics")) (workout_id text COLLATE \"C\" NOT NULL, activity_id text, "
                + "ordinal integer NOT NULL, type text NOT NULL, start_at timestamptz NOT NULL, end_at timestamptz NOT NULL, "
                + "average double precision, minimum double precision, maximum double precision, sum double precision, unit text)",
            "CREATE TABLE IF NOT EXISTS \(name("workout_activities")) (workout_id text COLLATE \"C\" NOT NULL, ordinal integer NOT NULL, "
                + "activity_id text NOT NULL, activity_type text, start_at timestamptz NOT NULL, end_at timestamptz, "
                + "duration_s double precision, metadata jsonb)",
            "CREATE TABLE IF NOT EXISTS \(name("workout_routes")) (workout_id text COLLATE \"C\" NOT NULL, ordinal integer NOT NULL, "
                + "source_name text, start_at timestamptz, end_at timestamptz, file_path text, metadata jsonb)",
            "CREATE TABLE IF NOT EXISTS \(name("workout_route_points")) (workout_id text COLLATE \"C\" NOT NULL, route_ordinal integer NOT NULL, "
                + "ordinal integer NOT NULL, time_at timestamptz NOT NULL, latitude double precision NOT NULL, "
                + "longitude double precision NOT NULL, altitude double precision, horizontal_accuracy double precision, "
                + "vertical_accuracy double precision, course double precision, speed double precision)",
        ] + Self.tables.map { "CREATE INDEX IF NOT EXISTS \($0)_workout ON \(name($0)) (workout_id)" }
    }

    /// CTEs deleting the children of the workout ids `ids` selects (`SELECT id FROM up`).
    func deletions(_ ids: String, prefix: String) -> [String] {
        Self.tables.enumerated().map { index, table in
            "\(prefix)\(index) AS (DELETE FROM \(name(table)) WHERE workout_id IN (\(ids)))"
        }
    }

    /// CTEs inserting the children of the workouts in `source` (a CTE with `id` and `detail`).
    func insertions(from source: String) -> [String] {
        let float = { (path: String) in "(\(path))::float8" }
        let time = { (path: String) in "(\(path))::timestamptz" }
        func events(_ from: String, activity: String) -> String {
            "SELECT u.id, \(activity), e.n - 1, e.v->>'type', \(time("e.v->>'date'")), \(float("e.v->>'duration'")), "
                + "e.v->'metadata' FROM \(from) jsonb_array_elements(\(activity == "NULL" ? "u.detail" : "a.v")->'events') "
                + "WITH ORDINALITY e(v, n)"
        }
        func statistics(_ from: String, activity: String) -> String {
            "SELECT u.id, \(activity), e.n - 1, e.v->>'type', \(time("e.v->>'start'")), \(time("e.v->>'end'")), "
                + "\(float("e.v->>'average'")), \(float("e.v->>'minimum'")), \(float("e.v->>'maximum'")), "
                + "\(float("e.v->>'sum'")), e.v->>'unit' FROM \(from) "
                + "jsonb_array_elements(\(activity == "NULL" ? "u.detail" : "a.v")->'statistics') WITH ORDINALITY e(v, n)"
        }
        let workouts = "\(source) u,"
        let activities = "\(source) u, jsonb_array_elements(u.detail->'activities') a(v),"
        return [
            "ci0 AS (INSERT INTO \(name("workout_events")) (workout_id, activity_id, ordinal, type, date_at, duration_s, metadata) "
                + events(workouts, activity: "NULL") + " UNION ALL " + events(activities, activity: "a.v->>'uuid'") + ")",
            "ci1 AS (INSERT INTO \(name("workout_statistics")) (workout_id, activity_id, ordinal, type, start_at, end_at, "
                + "average, minimum, maximum, sum, unit) "
                + statistics(workouts, activity: "NULL") + " UNION ALL " + statistics(activities, activity: "a.v->>'uuid'") + ")",
            "ci2 AS (INSERT INTO \(name("workout_activities")) (workout_id, ordinal, activity_id, activity_type, start_at, end_at, "
                + "duration_s, metadata) SELECT u.id, a.n - 1, a.v->>'uuid', a.v->>'activityType', \(time("a.v->>'start'")), "
                + "\(time("a.v->>'end'")), \(float("a.v->>'duration'")), a.v->'metadata' FROM \(source) u, "
                + "jsonb_array_elements(u.detail->'activities') WITH ORDINALITY a(v, n))",
            "ci3 AS (INSERT INTO \(name("workout_routes")) (workout_id, ordinal, source_name, start_at, end_at, file_path, metadata) "
                + "SELECT u.id, r.n - 1, r.v->>'source', \(time("r.v->>'start'")), \(time("r.v->>'end'")), r.v->>'filePath', "
                + "r.v->'metadata' FROM \(source) u, jsonb_array_elements(u.detail->'routes') WITH ORDINALITY r(v, n))",
            "ci4 AS (INSERT INTO \(name("workout_route_points")) (workout_id, route_ordinal, ordinal, time_at, latitude, longitude, "
                + "altitude, horizontal_accuracy, vertical_accuracy, course, speed) SELECT u.id, r.n - 1, p.n - 1, "
                + "\(time("p.v->>'time'")), \(float("p.v->>'latitude'")), \(float("p.v->>'longitude'")), "
                + "\(float("p.v->>'altitude'")), \(float("p.v->>'horizontalAccuracy'")), \(float("p.v->>'verticalAccuracy'")), "
                + "\(float("p.v->>'course'")), \(float("p.v->>'speed'")) FROM \(source) u, "
                + "jsonb_array_elements(u.detail->'routes') WITH ORDINALITY r(v, n), "
                + "jsonb_array_elements(r.v->'points') WITH ORDINALITY p(v, n))",
        ]
    }
}
