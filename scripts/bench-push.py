#!/usr/bin/env python3
"""Load generator for healthrouter's http_push source (used by bench-push.sh; stdlib only).

Starts nothing itself: posts to a running daemon whose routes send everything to a sqlite sink.

N clients (default 4), each on its own keep-alive connection, post gzip Pulso batches of B
(default 5,000) heart-rate samples with HealthKit-style UUIDs. The bodies are built and
compressed before the clock starts, so the measured window holds only the HTTP exchanges.

  --rate 0        saturation: every client posts its next batch as soon as the last one
                  got its 200.
  --rate R        paced: the clients together offer R samples/s (each posts one batch every
                  clients * size / R seconds, the clients evenly staggered); a client whose
                  request takes longer than its interval falls behind, and the achieved rate
                  says so.

Figures printed (targets of issue 4 in brackets):
  accepted durably   samples answered 200 / wall time from the first request to the last 200.
                     Every 200 comes after the journal commit (synchronous=FULL).
  time to 200        per 5,000-sample batch: request sent -> 200 read, p50/p99/max.
  visibility         per batch: its 200 -> the first poll of the sqlite file (read-only
                     connection, every 5 ms) that finds the batch's last sample. Resolution
                     ~5 ms plus the poll's own time.
  probes             a separate client pushes one sample every 100 ms during the load and
                     measures its visibility the same way: what a phone pushing a few new
                     readings sees while the big batches flow.
  sink drain         how long after the last 200 the sink had everything: a sink that cannot
                     keep up with the offered load shows here and in the growing visibility.
  generator CPU      CPU time this process used during the measured window (it shares the
                     machine's cores with the daemon it measures).
"""
import argparse, gzip, http.client, json, random, sqlite3, statistics, threading, time, uuid


def make_batch(rng, base, size, source="Apple Watch"):
    """A gzip Pulso body of `size` heart-rate samples one second apart from `base`, and its last id."""
    elements = []
    for n in range(size):
        t = base + n
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t))
        elements.append({"uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper(),
                         "type": "heartRate", "start": stamp, "end": stamp,
                         "value": 50 + n % 90, "unit": "count/min", "source": source,
                         "sourceBundleId": "com.apple.health.bench", "metadata": {"timeZone": "UTC"}})
    body = json.dumps(elements, separators=(",", ":")).encode()
    return gzip.compress(body, 6), elements[-1]["uuid"]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summary(values):
    if not values:
        return "none"
    return (f"median {statistics.median(values) * 1000:.0f} ms, p99 {percentile(values, 99) * 1000:.0f} ms, "
            f"max {max(values) * 1000:.0f} ms")


def verdict(ok):
    return "MET" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--sqlite", required=True, help="the sqlite sink's file, polled read-only")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--batches", type=int, default=20, help="batches per client")
    parser.add_argument("--size", type=int, default=5000, help="samples per batch")
    parser.add_argument("--rate", type=float, default=0, help="samples/s offered by all clients together (0: saturate)")
    parser.add_argument("--probe-interval", type=float, default=0.1, help="seconds between probe pushes (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    # Distinct time ranges per run (seed), client and batch, so that every sample is new.
    origin = 1_700_000_000 + args.seed * 100_000_000
    batches = [[make_batch(rng, origin + (c * args.batches + i) * args.size, args.size)
                for i in range(args.batches)] for c in range(args.clients)]
    interval = args.clients * args.size / args.rate if args.rate else 0
    mode = f"paced at {args.rate:,.0f} samples/s (one batch per client every {interval:.2f} s)" if args.rate \
        else "saturation (back to back)"
    print(f"{args.clients} clients x {args.batches} batches x {args.size} samples, {mode}; "
          f"gzip body ~{len(batches[0][0][0]) / 1024:.0f} KiB", flush=True)

    lock = threading.Lock()
    latencies, errors, pending, visible = [], [], {}, {"batch": [], "probe": []}
    probe_latencies = []
    done = threading.Event()
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip",
               "Authorization": f"Bearer {args.token}"}

    def post(connection, body):
        started = time.perf_counter()
        connection.request("POST", "/ingest", body=body, headers=headers)
        response = connection.getresponse()
        reply = response.read()
        return response.status, reply, started, time.perf_counter()

    behind = [0.0]

    def client(c, start_at):
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=120)
        next_at = start_at + (c * interval / args.clients if interval else 0)
        for body, last_id in batches[c]:
            if interval:
                time.sleep(max(0.0, next_at - time.perf_counter()))
                with lock:
                    behind[0] = max(behind[0], time.perf_counter() - next_at)
                next_at += interval
            status, reply, started, acked = post(connection, body)
            with lock:
                if status == 200:
                    latencies.append(acked - started)
                    pending[last_id] = ("batch", acked)
                else:
                    errors.append((status, reply[:200]))

    def prober():
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=120)
        probe_rng = random.Random(args.seed + 7)
        n = 0
        while not done.is_set():
            body, last_id = make_batch(probe_rng, origin - 10_000_000 + n, 1, source="probe")
            n += 1
            status, reply, started, acked = post(connection, body)
            with lock:
                if status == 200:
                    probe_latencies.append(acked - started)
                    pending[last_id] = ("probe", acked)
                else:
                    errors.append((status, reply[:200]))
            done.wait(args.probe_interval)

    last_seen = [0.0]

    def poller():
        database = None
        while True:
            with lock:
                waiting = list(pending.items())
            if done.is_set() and not waiting:
                break
            if done.is_set() and time.perf_counter() - finished_at[0] > 60:
                break
            try:
                if database is None:
                    database = sqlite3.connect(f"file:{args.sqlite}?mode=ro", uri=True, timeout=5)
                for start in range(0, len(waiting), 500):
                    chunk = waiting[start:start + 500]
                    found = database.execute(
                        f"SELECT id FROM samples WHERE id IN ({','.join('?' * len(chunk))})",
                        [identifier for identifier, _ in chunk]).fetchall()
                    now = time.perf_counter()
                    with lock:
                        for (identifier,) in found:
                            kind, acked = pending.pop(identifier)
                            visible[kind].append(now - acked)
                            last_seen[0] = now
            except sqlite3.Error:
                database = None  # the sink has not created the file or its tables yet
            time.sleep(0.005)

    finished_at = [0.0]
    watcher = threading.Thread(target=poller)
    watcher.start()
    probe_thread = threading.Thread(target=prober) if args.probe_interval > 0 else None
    cpu_started = time.process_time()
    started = time.perf_counter()
    if probe_thread:
        probe_thread.start()
    threads = [threading.Thread(target=client, args=(c, started)) for c in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    finished_at[0] = time.perf_counter()
    cpu_used = time.process_time() - cpu_started
    done.set()
    if probe_thread:
        probe_thread.join()
    watcher.join()

    accepted = len(latencies) * args.size
    rate = accepted / elapsed
    print(f"batches answered 200: {len(latencies)}, errors: {len(errors)} {errors[:3]}")
    if interval:
        kept_up = behind[0] <= interval
        print(f"accepted durably: {rate:,.0f} samples/s ({accepted} samples in {elapsed:.2f} s) of {args.rate:,.0f} offered; "
              f"the clients were at most {behind[0] * 1000:.0f} ms behind their schedule "
              f"[{'kept up' if kept_up else 'FELL BEHIND: the daemon cannot take the offered rate'}]")
    else:
        print(f"accepted durably: {rate:,.0f} samples/s ({accepted} samples in {elapsed:.2f} s) "
              f"[target >= 50,000: {verdict(rate >= 50_000)}]")
    if latencies:
        p99 = percentile(latencies, 99)
        print(f"time to 200 per {args.size}-sample batch: p50 {percentile(latencies, 50) * 1000:.0f} ms, "
              f"p99 {p99 * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms [target p99 <= 250 ms: {verdict(p99 <= 0.25)}]")
    batch_visible = visible["batch"]
    if batch_visible:
        ok = max(batch_visible) <= 1.0 and statistics.median(batch_visible) <= 0.2
        print(f"visibility in the sqlite sink after the 200 (last sample of each batch): {summary(batch_visible)} "
              f"({len(batch_visible)} batches) [target max <= 1 s, median <= 200 ms: {verdict(ok)}]")
    if probe_latencies:
        print(f"probes (1 sample every {args.probe_interval * 1000:.0f} ms during the load): "
              f"time to 200 median {statistics.median(probe_latencies) * 1000:.0f} ms; "
              f"visibility {summary(visible['probe'])} ({len(visible['probe'])} probes)")
    still = sum(1 for kind, _ in pending.values() if kind == "batch")
    if still:
        print(f"sink: {still} batches not visible 60 s after the load ended (the sink cannot keep up)")
    elif batch_visible:
        print(f"sink drain: everything visible {max(0.0, last_seen[0] - finished_at[0]) * 1000:.0f} ms after the last 200")
    print(f"generator CPU during the load: {cpu_used:.2f} s over {elapsed:.2f} s "
          f"({cpu_used / elapsed * 100:.0f}% of one core)")


if __name__ == "__main__":
    main()
