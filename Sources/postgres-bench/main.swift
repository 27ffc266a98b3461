// Drives the Postgres sinks with generated samples and prints rows/s (scripts/bench-postgres.sh).
//
//   postgres-bench --url CONNINFO --rows N --sink timescaledb|postgres --schema S
//   postgres-bench --url CONNINFO --sink … --schema S --prepare-only 1   (creates the tables only)
//   postgres-bench --rows N --sink S --tsv FILE   (the rows as sink S stages them, COPY text, for the psql reference)
//   postgres-bench --sink S --schema S --reference-sql TSV [--lookup 1]   (prints the psql reference's script)
// Samples carry fingerprint ids, as an export's do, marked the first of their id as the journal
// marks them; `--producer-ids 1` gives them a producer's own ids instead (as a phone's
// pushes carry: never the first of their id, so no bulk load).
import Foundation
import HealthRouterCore
import PostgresClient
import PostgresSink
import TimescaleDBSink

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let key = arguments.popFirst() {
    options[String(key.dropFirst(2))] = arguments.popFirst() ?? ""
}
let rows = Int(options["rows"] ?? "1000000") ?? 1_000_000
let batchSize = Int(options["batch"] ?? "5000") ?? 5000
let types = ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount",
             "HKQuantityTypeIdentifierActiveEnergyBurned", "HKQuantityTypeIdentifierDistanceWalkingRunning",
             "HKQuantityTypeIdentifierBasalEnergyBurned"]
let units = ["count/min", "count", "kcal", "m", "kcal"]
let base: Int64 = 1_577_836_800_000  // 2020-01-01
let producerIds = options["producer-ids"] != nil

/// Sample `n`: a deterministic mix of quantity types over ~5 years, two sources.
func sample(_ n: Int) -> Sample {
    let kind = n % 20 < 9 ? 0 : 1 + n % 4
    let start = base + Int64(n) * 150_000
    var bytes = [UInt8](repeating: 0, count: 16)
    var rest = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
    for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: rest >> (8 * UInt64(index))) }
    rest = UInt64(n)
    for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: rest >> (8 * UInt64(index - 8))) }
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    var sample = Sample(id: producerIds ? UUIDv5.format(bytes) : "", type: types[kind], kind: .quantity,
                  start: Timestamp(epochMilliseconds: start, utcOffsetSeconds: 3600),
                  end: Timestamp(epochMilliseconds: start + (kind == 0 ? 0 : 60_000), utcOffsetSeconds: 3600),
                  value: Double(60 + n % 90) + Double(n % 7) / 4, unit: units[kind],
                  sourceName: n % 3 == 0 ? "iPhone" : "Apple Watch", sourceVersion: "17.2",
                  device: n % 3 == 0 ? "iPhone" : "Apple Watch",
                  metadata: kind == 0 ? [MetadataEntry("HKMetadataKeyHeartRateMotionContext", .number(Double(n % 3)))] : [])
    sample.assignFingerprintIdIfMissing()
    return sample
}

let benchUserId = "00000000-0000-4000-8000-000000000001"

if let tsv = options["tsv"], let sinkType = options["sink"] {
    // The rows exactly as the sink stages them (its own row encoder), for the psql reference.
    var writer = CopyTextWriter(capacity: 1 << 26)
    let handle = FileManager.default.createFile(atPath: tsv, contents: nil) ? FileHandle(forWritingAtPath: tsv) : nil
    guard let handle else { fatalError("cannot write \(tsv)") }
    var postgres = PostgresSinkReference(schema: "public", userId: benchUserId)
    var timescale = TimescaleDBSinkReference(schema: "public", userId: nil)
    for n in 0..<rows {
        if sinkType == "postgres" {
            postgres.append(sample(n), sequence: Int64(n + 1), into: &writer)
        } else {
            timescale.append(sample(n), sequence: Int64(n + 1), into: &writer)
        }
        if writer.bytes.count > 1 << 25 { handle.write(Data(writer.bytes)); writer.reset() }
    }
    handle.write(Data(writer.bytes))
    handle.closeFile()
    exit(0)
}

if let tsv = options["reference-sql"], let sinkType = options["sink"], let schema = options["schema"] {
    // The psql reference: one transaction, COPY of the sink's rows into the staging table, and the
    // upsert (for timescaledb with `--lookup 1` also filling sample_index from its RETURNING).
    let table = sinkType == "postgres" ? PostgresSinkReference(schema: schema, userId: benchUserId).table
        : TimescaleDBSinkReference(schema: schema, userId: nil).samples
    var upsert = table.upsertSQL
    if options["lookup"] != nil {
        let index = TimescaleDBSinkReference(schema: schema, userId: nil).sampleIndex
        upsert = "WITH up AS (\(upsert) RETURNING t.id, t.start_at) INSERT INTO \(index) AS k (id, table_name, start_at) "
            + "SELECT id, 'samples', start_at FROM up ON CONFLICT (id) DO UPDATE SET table_name = EXCLUDED.table_name, "
            + "start_at = EXCLUDED.start_at, previous_table = k.table_name, previous_start_at = k.start_at "
            + "WHERE (k.table_name, k.start_at) IS DISTINCT FROM (EXCLUDED.table_name, EXCLUDED.start_at)"
    }
    let copy = table.copySQL.replacingOccurrences(of: " FROM STDIN", with: "")
    print("BEGIN;\n\(table.createStagingSQL);\n\\copy \(copy.dropFirst("COPY ".count)) FROM '\(tsv)'\n\(upsert);\nCOMMIT;")
    exit(0)
}

guard let url = options["url"], let sinkType = options["sink"], let schema = options["schema"] else {
    print("usage: postgres-bench --url CONNINFO --sink timescaledb|postgres --schema S [--rows N]")
    exit(64)
}
let context = PluginContext(name: "bench", stateDirectory: NSTemporaryDirectory(), logger: Logger(minimumLevel: .warning))
func makeSink() -> any Sink {
    sinkType == "postgres"
        ? PostgresSink(configuration: .init(url: url, userId: benchUserId, schema: schema),
                       context: context)
        : TimescaleDBSink(configuration: .init(url: url, schema: schema, requireTimescaledb: false), context: context)
}
let tables = sinkType == "postgres" ? ["healthkit_metrics"] : ["samples", "sample_index"]
let stamp = sinkType == "postgres" ? "synced_at" : "written_at"
/// Rows, total size, and rows written (inserted or changed) since `since`.
func measure(_ connection: PostgresConnection, since: Date) throws -> (rows: Int64, bytes: Int64, tuples: Int64) {
    var count: Int64 = 0, bytes: Int64 = 0
    for table in tables {
        let name = SQL.qualified(schema, table)
        count += try connection.execute("SELECT count(*) FROM \(name)").int(0, 0) ?? 0
        bytes += try connection.query("SELECT pg_total_relation_size($1::regclass)", [name]).int(0, 0) ?? 0
    }
    let written = try connection.query("SELECT count(*) FROM \(SQL.qualified(schema, tables[0])) WHERE \(stamp) >= to_timestamp($1::float8)",
                                       [String(since.timeIntervalSince1970)]).int(0, 0) ?? 0
    return (count, bytes, written)
}

/// CPU seconds (user + system) of server process `pid`, read from /proc through the server: needs
/// a local server and a superuser (as scripts/with-postgres.sh gives); nil otherwise.
func serverCPUSeconds(_ connection: PostgresConnection, pid: Int64) -> Double? {
    guard let stat = try? connection.query("SELECT pg_read_file($1)", ["/proc/\(pid)/stat"]).text(0, 0),
          let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// CPU seconds this thread has used.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let sink = makeSink()
_ = try sink.prepare()
if options["prepare-only"] != nil { sink.close(); exit(0) }
let observer = try PostgresConnection(url: url)
// The sink's server process: the one other healthrouter connection to this database.
let sinkBackends = try observer.execute("SELECT pid FROM pg_stat_activity WHERE application_name = 'healthrouter' "
                                            + "AND pid <> pg_backend_pid() AND datname = current_database()")
let sinkBackend = sinkBackends.rowCount == 1 ? sinkBackends.int(0, 0) : nil
var results: [String] = []
for pass in 1...2 {
    // Settle first, untimed: autovacuum left over from the previous phase would run during this one.
    for table in tables { try observer.execute("VACUUM ANALYZE \(SQL.qualified(schema, table))") }
    // The second pass re-sends the first's entries as a backfill does: the same sequence numbers,
    // and the sink's cursor (already past them) unchanged.
    let started = Date()
    // Only the sink's own work is timed: making the samples stands for reading the journal.
    var seconds = 0.0
    var clientCPU = 0.0
    let serverCPUBefore = sinkBackend.flatMap { serverCPUSeconds(observer, pid: $0) }
    var n = 0
    var entries: [JournalEntry] = []
    entries.reserveCapacity(batchSize)
    while n < rows {
        let count = min(batchSize, rows - n)
        entries.removeAll(keepingCapacity: true)
        for offset in 0..<count {
            entries.append(JournalEntry(sequence: Int64(n + offset + 1), source: "bench",
                                        item: .sample(sample(n + offset)), isFirstOfId: !producerIds))
        }
        let writeStarted = DispatchTime.now().uptimeNanoseconds
        let cpuStarted = threadCPUSeconds()
        try sink.write(entries, cursor: pass == 1 ? Int64(n + count) : Int64(rows))
        clientCPU += threadCPUSeconds() - cpuStarted
        seconds += Double(DispatchTime.now().uptimeNanoseconds - writeStarted) / 1e9
        n += count
    }
    // Caught up: what the sink put off (a bulk load's key) is built here, and timed with the pass.
    let writeStarted = DispatchTime.now().uptimeNanoseconds
    let cpuStarted = threadCPUSeconds()
    try sink.caughtUp()
    clientCPU += threadCPUSeconds() - cpuStarted
    seconds += Double(DispatchTime.now().uptimeNanoseconds - writeStarted) / 1e9
    let serverCPU = sinkBackend.flatMap { pid in serverCPUBefore.flatMap { before in serverCPUSeconds(observer, pid: pid).map { $0 - before } } }
    let state = try measure(observer, since: started)
    let cpu = serverCPU.map { String(format: "; cpu: server %.2f s + client %.2f s", $0, clientCPU) } ?? ""
    results.append("\(sinkType) pass \(pass) (\(batchSize) rows a batch): \(rows) rows in \(String(Int(seconds * 1000))) ms = \(Int(Double(rows) / seconds)) rows/s; "
                   + "table rows \(state.rows), size \(state.bytes / 1_048_576) MB, rows written in this pass \(state.tuples)\(cpu)")
    print(results.last!)
}
sink.close()
