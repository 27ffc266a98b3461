-- healthrouter test stand-in for TimescaleDB (scripts/with-postgres.sh installs it as the
-- `timescaledb` extension's scripts when TimescaleDB itself is absent). It has no library: what it
-- gives the tests is the extension's catalog row, and the functions the timescaledb sink calls to
-- make hypertables, declared with TimescaleDB 2.13+'s documented signatures (argument names,
-- types, defaults) so that the sink's statements must bind to them as they would on the real
-- extension. Each records its call in _timescaledb_internal.stand_in_calls instead of doing
-- anything, so the tables stay plain.

CREATE SCHEMA _timescaledb_internal;
CREATE TYPE _timescaledb_internal.dimension_info AS (column_name name, partition_interval text);
CREATE TABLE _timescaledb_internal.stand_in_calls (seq bigserial PRIMARY KEY, call text NOT NULL);

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
RETURNS integer LANGUAGE sql AS $$
    INSERT INTO _timescaledb_internal.stand_in_calls (call)
    VALUES (format('add_retention_policy(%s, drop_after => %s, if_not_exists => %s)', relation, drop_after, if_not_exists))
    RETURNING seq::integer
$$;
