-- healthrouter test stand-in for TimescaleDB (scripts/with-postgres.sh installs it as the
-- `timescaledb` extension's scripts when TimescaleDB itself is absent). It has no library: what it
-- gives the tests is the extension's catalog row, and the functions the timescaledb sink calls to
-- make hypertables, declared with TimescaleDB 2.13+'s documented signatures (argument names,
-- types, defaults) so that the sink's statements must bind to them as they would on the real
-- extension. Each records its call in _timescaledb_internal.stand_in_calls instead of doing
-- anything, so the tables stay plain. The hypertables' chunk intervals and the retention jobs are
-- kept as TimescaleDB keeps them, in its timescaledb_information views (the columns the sink
-- reads), so a second start sees what the first one set up; its chunks are the ranges that hold
-- rows, and drop_chunks deletes the rows of the old ones. Compression settings and policies and
-- the continuous aggregate's refresh policy are kept likewise; the table options TimescaleDB's own
-- utility hook takes (`ALTER TABLE … SET (timescaledb.compress …)`, `CREATE MATERIALIZED VIEW …
-- WITH (timescaledb.continuous …)`), which plain PostgreSQL refuses, reach
-- _timescaledb_internal.stand_in_utility through a test's proxy (PostgresStatementProxy).

CREATE SCHEMA _timescaledb_internal;
CREATE TYPE _timescaledb_internal.dimension_info AS (column_name name, partition_interval text);
CREATE TABLE _timescaledb_internal.stand_in_calls (seq bigserial PRIMARY KEY, call text NOT NULL);
CREATE TABLE _timescaledb_internal.stand_in_dimensions (hypertable regclass PRIMARY KEY, column_name name NOT NULL,
                                                        time_interval interval NOT NULL);
CREATE TABLE _timescaledb_internal.stand_in_jobs (job_id serial PRIMARY KEY, proc_name name NOT NULL,
                                                  hypertable regclass NOT NULL, config jsonb NOT NULL);
CREATE SCHEMA timescaledb_information;
CREATE VIEW timescaledb_information.dimensions AS
    SELECT n.nspname AS hypertable_schema, c.relname AS hypertable_name, d.column_name, d.time_interval
    FROM _timescaledb_internal.stand_in_dimensions d JOIN pg_class c ON c.oid = d.hypertable
    JOIN pg_namespace n ON n.oid = c.relnamespace;
CREATE VIEW timescaledb_information.jobs AS
    SELECT j.job_id, j.proc_name, n.nspname AS hypertable_schema, c.relname AS hypertable_name, j.config
    FROM _timescaledb_internal.stand_in_jobs j JOIN pg_class c ON c.oid = j.hypertable
    JOIN pg_namespace n ON n.oid = c.relnamespace;

-- The chunks: one per interval of the dimension's column that holds rows (TimescaleDB creates a
-- chunk for the first row of its range), aligned to the Unix epoch.
CREATE FUNCTION _timescaledb_internal.stand_in_chunks()
RETURNS TABLE (hypertable_schema name, hypertable_name name, range_start timestamptz, range_end timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    d record;
BEGIN
    FOR d IN SELECT n.nspname, c.relname, s.hypertable, s.column_name, extract(epoch FROM s.time_interval) AS seconds
             FROM _timescaledb_internal.stand_in_dimensions s JOIN pg_class c ON c.oid = s.hypertable
             JOIN pg_namespace n ON n.oid = c.relnamespace LOOP
        RETURN QUERY EXECUTE format('SELECT DISTINCT $1, $2, to_timestamp(b * $3), to_timestamp((b + 1) * $3) '
                                    'FROM (SELECT floor(extract(epoch FROM %I) / $3) AS b FROM %s) x',
                                    d.column_name, d.hypertable)
            USING d.nspname, d.relname, d.seconds;
    END LOOP;
END
$$;
CREATE VIEW timescaledb_information.chunks AS SELECT * FROM _timescaledb_internal.stand_in_chunks();

-- drop_chunks(relation, older_than, …): deletes the rows of the chunks that end at or before
-- now() - older_than, as TimescaleDB's retention job does (the sink never calls it; tests do;
-- newer_than and verbose are refused, not ignored).
CREATE FUNCTION drop_chunks(relation regclass, older_than interval DEFAULT NULL, newer_than interval DEFAULT NULL,
                            verbose boolean DEFAULT false)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    d record;
BEGIN
    IF older_than IS NULL OR newer_than IS NOT NULL OR drop_chunks.verbose THEN
        RAISE EXCEPTION 'stand-in: drop_chunks takes older_than alone';
    END IF;
    SELECT s.column_name, extract(epoch FROM s.time_interval) AS seconds INTO d
    FROM _timescaledb_internal.stand_in_dimensions s WHERE s.hypertable = relation;
    EXECUTE format('DELETE FROM %s WHERE floor(extract(epoch FROM %I) / $2) * $2 + $2 <= extract(epoch FROM now() - $1)',
                   relation, d.column_name) USING older_than, d.seconds;
    INSERT INTO _timescaledb_internal.stand_in_calls (call) VALUES (format('drop_chunks(%s, older_than => %s)', relation, older_than));
END
$$;

-- by_range(column_name, partition_interval, partition_func): a range dimension (2.13+).
CREATE FUNCTION by_range(column_name name, partition_interval anyelement DEFAULT NULL::bigint,
                         partition_func regproc DEFAULT NULL)
RETURNS _timescaledb_internal.dimension_info LANGUAGE sql AS $$
    SELECT ROW(column_name, partition_interval::text)::_timescaledb_internal.dimension_info
$$;

-- create_hypertable(relation, dimension, …): the generalized form (2.13+).
CREATE FUNCTION create_hypertable(relation regclass, dimension _timescaledb_internal.dimension_info,
                                  create_default_indexes boolean DEFAULT true, if_not_exists boolean DEFAULT false,
                                  migrate_data boolean DEFAULT false)
RETURNS TABLE (hypertable_id integer, created boolean) LANGUAGE sql AS $$
    WITH dimension AS (INSERT INTO _timescaledb_internal.stand_in_dimensions
                       VALUES (relation, (dimension).column_name, (dimension).partition_interval::interval)
                       ON CONFLICT (hypertable) DO NOTHING)
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('create_hypertable(%s, by_range(%s, %s), if_not_exists => %s, migrate_data => %s)',
                   relation, (dimension).column_name, (dimension).partition_interval, if_not_exists, migrate_data))
    RETURNING seq::integer, true
$$;

-- The older form, which TimescaleDB keeps beside it: a call must not be ambiguous between the two.
CREATE FUNCTION create_hypertable(relation regclass, time_column_name name, partitioning_column name DEFAULT NULL,
                                  number_partitions integer DEFAULT NULL, associated_schema_name name DEFAULT NULL,
                                  associated_table_prefix name DEFAULT NULL,
                                  chunk_time_interval anyelement DEFAULT NULL::bigint,
                                  create_default_indexes boolean DEFAULT true, if_not_exists boolean DEFAULT false,
                                  partitioning_func regproc DEFAULT NULL, migrate_data boolean DEFAULT false,
                                  chunk_target_size text DEFAULT NULL, chunk_sizing_func regproc DEFAULT NULL,
                                  time_partitioning_func regproc DEFAULT NULL)
RETURNS TABLE (hypertable_id integer, schema_name name, table_name name, created boolean) LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'stand-in: the deprecated create_hypertable(relation, time_column_name, …) was called';
END
$$;

-- add_retention_policy(relation, drop_after, if_not_exists, …) (drop_after is "any" in TimescaleDB,
-- which a function in SQL cannot take; some versions add drop_created_before).
CREATE FUNCTION add_retention_policy(relation regclass, drop_after anyelement,
                                     if_not_exists boolean DEFAULT false, schedule_interval interval DEFAULT NULL,
                                     initial_start timestamptz DEFAULT NULL, timezone text DEFAULT NULL,
                                     drop_created_before interval DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    job integer;
BEGIN
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('add_retention_policy(%s, drop_after => %s, if_not_exists => %s)', relation, drop_after, if_not_exists));
    SELECT j.job_id INTO job FROM _timescaledb_internal.stand_in_jobs j
    WHERE j.proc_name = 'policy_retention' AND j.hypertable = relation;
    IF job IS NOT NULL THEN
        IF NOT if_not_exists THEN
            RAISE EXCEPTION 'retention policy already exists for hypertable "%"', relation;
        END IF;
        -- TimescaleDB keeps the existing policy, whatever its arguments.
        RAISE WARNING 'retention policy already exists for hypertable "%"', relation;
        RETURN -1;
    END IF;
    INSERT INTO _timescaledb_internal.stand_in_jobs (proc_name, hypertable, config)
    VALUES ('policy_retention', relation, jsonb_build_object('drop_after', drop_after::text)) RETURNING job_id INTO job;
    RETURN job;
END
$$;

-- remove_retention_policy(relation, if_exists).
CREATE FUNCTION remove_retention_policy(relation regclass, if_exists boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('remove_retention_policy(%s, if_exists => %s)', relation, if_exists));
    DELETE FROM _timescaledb_internal.stand_in_jobs j WHERE j.proc_name = 'policy_retention' AND j.hypertable = relation;
    IF NOT FOUND AND NOT if_exists THEN
        RAISE EXCEPTION 'retention policy not found for hypertable "%"', relation;
    END IF;
END
$$;

-- set_chunk_time_interval(hypertable, chunk_time_interval, dimension_name).
CREATE FUNCTION set_chunk_time_interval(hypertable regclass, chunk_time_interval anyelement, dimension_name name DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
    UPDATE _timescaledb_internal.stand_in_dimensions d SET time_interval = chunk_time_interval::text::interval
    WHERE d.hypertable = set_chunk_time_interval.hypertable;
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('set_chunk_time_interval(%s, %s)', hypertable, chunk_time_interval));
$$;

-- Compression settings as ALTER TABLE … SET (timescaledb.compress, …) leaves them (2.14+: they may
-- change at any time, and apply to chunks compressed from then on).
CREATE TABLE _timescaledb_internal.stand_in_compression (hypertable regclass PRIMARY KEY, segmentby text[] NOT NULL,
                                                         orderby text[] NOT NULL, orderby_asc boolean[] NOT NULL);
CREATE VIEW timescaledb_information.hypertables AS
    SELECT n.nspname AS hypertable_schema, c.relname AS hypertable_name, s.hypertable IS NOT NULL AS compression_enabled
    FROM _timescaledb_internal.stand_in_dimensions d JOIN pg_class c ON c.oid = d.hypertable
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN _timescaledb_internal.stand_in_compression s ON s.hypertable = d.hypertable;
-- One row a segmentby or orderby column, as TimescaleDB's view (kept for compatibility in 2.14+).
CREATE VIEW timescaledb_information.compression_settings AS
    SELECT n.nspname AS hypertable_schema, c.relname AS hypertable_name, x.attname::name AS attname,
           x.segmentby_column_index::smallint AS segmentby_column_index,
           x.orderby_column_index::smallint AS orderby_column_index, x.orderby_asc, x.orderby_nullsfirst
    FROM _timescaledb_internal.stand_in_compression s JOIN pg_class c ON c.oid = s.hypertable
    JOIN pg_namespace n ON n.oid = c.relnamespace,
    LATERAL (SELECT g.attname, g.i AS segmentby_column_index, NULL::bigint AS orderby_column_index,
                    NULL::boolean AS orderby_asc, NULL::boolean AS orderby_nullsfirst
             FROM unnest(s.segmentby) WITH ORDINALITY g(attname, i)
             UNION ALL
             SELECT o.attname, NULL, o.i, o.ascending, NOT o.ascending
             FROM unnest(s.orderby, s.orderby_asc) WITH ORDINALITY o(attname, ascending, i)) x;

-- What TimescaleDB's utility hook does with its table options: ALTER TABLE … SET
-- (timescaledb.compress, timescaledb.compress_segmentby = '…', timescaledb.compress_orderby = '…')
-- records the settings; CREATE MATERIALIZED VIEW … WITH (timescaledb.continuous, …) creates the
-- view without them (so its query runs against the tables as PostgreSQL plans it).
CREATE FUNCTION _timescaledb_internal.stand_in_utility(statement text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    parts text[];
    given_segmentby text;
    given_orderby text;
    item text;
    columns text[] := '{}';
    ascending boolean[] := '{}';
BEGIN
    parts := regexp_match(statement, '^\s*ALTER TABLE\s+(\S+)\s+SET\s*\((.*)\)\s*$', 'is');
    IF parts IS NOT NULL AND parts[2] ~* '\mtimescaledb\.compress' THEN
        given_segmentby := (regexp_match(parts[2], 'timescaledb\.compress_segmentby\s*=\s*''([^'']*)''', 'i'))[1];
        given_orderby := (regexp_match(parts[2], 'timescaledb\.compress_orderby\s*=\s*''([^'']*)''', 'i'))[1];
        FOREACH item IN ARRAY string_to_array(coalesce(given_orderby, ''), ',') LOOP
            columns := columns || split_part(btrim(item), ' ', 1);
            ascending := ascending || (btrim(item) !~* '\sDESC$');
        END LOOP;
        INSERT INTO _timescaledb_internal.stand_in_compression
        VALUES (parts[1]::regclass, ARRAY(SELECT btrim(c) FROM unnest(string_to_array(coalesce(given_segmentby, ''), ',')) c
                                         WHERE btrim(c) <> ''), columns, ascending)
        ON CONFLICT (hypertable) DO UPDATE SET
            segmentby = CASE WHEN given_segmentby IS NULL THEN stand_in_compression.segmentby ELSE EXCLUDED.segmentby END,
            orderby = CASE WHEN given_orderby IS NULL THEN stand_in_compression.orderby ELSE EXCLUDED.orderby END,
            orderby_asc = CASE WHEN given_orderby IS NULL THEN stand_in_compression.orderby_asc ELSE EXCLUDED.orderby_asc END;
    ELSIF statement ~* '^\s*CREATE MATERIALIZED VIEW\M.*\mWITH\s*\(\s*timescaledb\.continuous' THEN
        EXECUTE regexp_replace(statement, 'WITH\s*\(\s*timescaledb\.[^)]*\)', '', 'i');
    ELSE
        RAISE EXCEPTION 'stand-in: no TimescaleDB utility statement: %', statement;
    END IF;
END
$$;

-- time_bucket(bucket_width, ts): buckets from TimescaleDB's origin for intervals, 2000-01-03 (a Monday).
CREATE FUNCTION time_bucket(bucket_width interval, ts timestamptz)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT date_bin(bucket_width, ts, TIMESTAMPTZ '2000-01-03 00:00:00+00')
$$;

-- add_compression_policy(hypertable, compress_after, if_not_exists, …) (compress_after is "any").
CREATE FUNCTION add_compression_policy(hypertable regclass, compress_after anyelement,
                                       if_not_exists boolean DEFAULT false, schedule_interval interval DEFAULT NULL,
                                       initial_start timestamptz DEFAULT NULL, timezone text DEFAULT NULL,
                                       compress_created_before interval DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    job integer;
BEGIN
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('add_compression_policy(%s, compress_after => %s, if_not_exists => %s)', hypertable, compress_after,
                   if_not_exists));
    IF NOT EXISTS (SELECT FROM _timescaledb_internal.stand_in_compression s WHERE s.hypertable = add_compression_policy.hypertable) THEN
        RAISE EXCEPTION 'columnstore not enabled on hypertable "%"', hypertable;
    END IF;
    SELECT j.job_id INTO job FROM _timescaledb_internal.stand_in_jobs j
    WHERE j.proc_name = 'policy_compression' AND j.hypertable = add_compression_policy.hypertable;
    IF job IS NOT NULL THEN
        IF NOT if_not_exists THEN
            RAISE EXCEPTION 'compression policy already exists for hypertable "%"', hypertable;
        END IF;
        RAISE WARNING 'compression policy already exists for hypertable "%"', hypertable;
        RETURN -1;
    END IF;
    INSERT INTO _timescaledb_internal.stand_in_jobs (proc_name, hypertable, config)
    VALUES ('policy_compression', hypertable, jsonb_build_object('compress_after', compress_after::text)) RETURNING job_id INTO job;
    RETURN job;
END
$$;

-- remove_compression_policy(hypertable, if_exists).
CREATE FUNCTION remove_compression_policy(hypertable regclass, if_exists boolean DEFAULT false)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('remove_compression_policy(%s, if_exists => %s)', hypertable, if_exists));
    DELETE FROM _timescaledb_internal.stand_in_jobs j
    WHERE j.proc_name = 'policy_compression' AND j.hypertable = remove_compression_policy.hypertable;
    IF NOT FOUND AND NOT if_exists THEN
        RAISE EXCEPTION 'compression policy not found for hypertable "%"', hypertable;
    END IF;
    RETURN FOUND;
END
$$;

-- add_continuous_aggregate_policy(continuous_aggregate, start_offset, end_offset, schedule_interval,
-- if_not_exists, …) (the offsets are "any" in TimescaleDB; NULL start_offset: from the first row).
CREATE FUNCTION add_continuous_aggregate_policy(continuous_aggregate regclass, start_offset anyelement,
                                                end_offset anyelement, schedule_interval interval,
                                                if_not_exists boolean DEFAULT false,
                                                initial_start timestamptz DEFAULT NULL, timezone text DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    job integer;
BEGIN
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('add_continuous_aggregate_policy(%s, start_offset => %s, end_offset => %s, schedule_interval => %s, '
                   'if_not_exists => %s)', continuous_aggregate, coalesce(start_offset::text, 'NULL'),
                   coalesce(end_offset::text, 'NULL'), schedule_interval, if_not_exists));
    IF (SELECT relkind FROM pg_class WHERE oid = continuous_aggregate) <> 'm' THEN
        RAISE EXCEPTION 'relation "%" is not a continuous aggregate', continuous_aggregate;
    END IF;
    SELECT j.job_id INTO job FROM _timescaledb_internal.stand_in_jobs j
    WHERE j.proc_name = 'policy_refresh_continuous_aggregate' AND j.hypertable = continuous_aggregate;
    IF job IS NOT NULL THEN
        IF NOT if_not_exists THEN
            RAISE EXCEPTION 'continuous aggregate policy already exists for "%"', continuous_aggregate;
        END IF;
        RETURN -1;
    END IF;
    INSERT INTO _timescaledb_internal.stand_in_jobs (proc_name, hypertable, config)
    VALUES ('policy_refresh_continuous_aggregate', continuous_aggregate,
            jsonb_build_object('start_offset', start_offset::text, 'end_offset', end_offset::text)) RETURNING job_id INTO job;
    RETURN job;
END
$$;
