-- healthrouter test stand-in for TimescaleDB (scripts/with-postgres.sh installs it as the
-- `timescaledb` extension's scripts when TimescaleDB itself is absent). It has no library: what it
-- gives the tests is the extension's catalog row, and the functions the timescaledb sink calls to
-- make hypertables, declared with TimescaleDB 2.13+'s documented signatures (argument names,
-- types, defaults) so that the sink's statements must bind to them as they would on the real
-- extension. Each records its call in _timescaledb_internal.stand_in_calls instead of doing
-- anything, so the tables stay plain. The hypertables' chunk intervals and the retention jobs are
-- kept as TimescaleDB keeps them, in its timescaledb_information views (the columns the sink
-- reads), so a second start sees what the first one set up; its chunks are the ranges that hold
-- rows, and drop_chunks deletes the rows of the old ones.

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
