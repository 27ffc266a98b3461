#!/usr/bin/env python3
"""Load generator for healthrouter's http_push source (used by bench-push.sh).

Starts nothing itself: posts to a running daemon. N clients post gzip Pulso batches of
B heart-rate samples each; prints samples/s accepted durably (every 200 comes after the
journal commit), p50/p99 time to 200 per batch, and how long after its 200 each batch's
last sample is visible in the sqlite sink (polled every 5 ms).
"""
import argparse, gzip, http.client, json, sqlite3, statistics, threading, time

def make_batch(client, index, size):
    elements = []
    base = 1_780_000_000 + (client * 10_000 + index) * size
    for n in range(size):
        t = base + n
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t))
        elements.append({"uuid": f"B{client}-{index}-{n}", "type": "heartRate", "start": stamp, "end": stamp,
                         "value": 50 + n % 90, "unit": "count/min", "source": "Apple Watch",
                         "sourceBundleId": "com.apple.health.bench", "metadata": {"timeZone": "UTC"}})
    body = json.dumps(elements, separators=(",", ":")).encode()
    return gzip.compress(body, 6), f"B{client}-{index}-{size - 1}"

def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--sqlite", required=True)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--batches", type=int, default=20, help="batches per client")
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--interval", type=float, default=0,
                        help="seconds between a client's batches (0: back to back, saturating the daemon)")
    args = parser.parse_args()

    print(f"preparing {args.clients} x {args.batches} batches of {args.size} samples ...", flush=True)
    batches = [[make_batch(c, i, args.size) for i in range(args.batches)] for c in range(args.clients)]
    print(f"gzip body ~{len(batches[0][0][0]) / 1024:.0f} KiB per batch", flush=True)

    latencies, pending, visible, errors = [], [], [], []
    lock = threading.Lock()
    done = threading.Event()

    def client(c):
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=60)
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip",
                   "Authorization": f"Bearer {args.token}"}
        next_at = time.perf_counter()
        for body, last_id in batches[c]:
            if args.interval:
                time.sleep(max(0, next_at - time.perf_counter()))
                next_at += args.interval
            started = time.perf_counter()
            connection.request("POST", "/ingest", body=body, headers=headers)
            response = connection.getresponse()
            reply = response.read()
            acked = time.perf_counter()
            with lock:
                if response.status == 200:
                    latencies.append(acked - started)
                    pending.append((acked, last_id))
                else:
                    errors.append((response.status, reply[:200]))

    def poller():
        database = sqlite3.connect(f"file:{args.sqlite}?mode=ro", uri=True, timeout=5)
        while not done.is_set() or pending:
            with lock:
                waiting = list(pending)
            for acked, last_id in waiting:
                try:
                    row = database.execute("SELECT 1 FROM samples WHERE id = ?", (last_id,)).fetchone()
                except sqlite3.OperationalError:
                    row = None
                if row:
                    now = time.perf_counter()
                    with lock:
                        pending.remove((acked, last_id))
                        visible.append(now - acked)
            if done.is_set() and time.perf_counter() - finished_at[0] > 30:
                break
            time.sleep(0.005)

    finished_at = [0.0]
    watcher = threading.Thread(target=poller)
    watcher.start()
    threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
    started = time.perf_counter()
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    elapsed = time.perf_counter() - started
    finished_at[0] = time.perf_counter()
    done.set()
    watcher.join()

    accepted = len(latencies) * args.size
    print(f"clients {args.clients}, interval {args.interval or 'none'}, batches {len(latencies)} x {args.size} samples, errors {len(errors)} {errors[:3]}")
    print(f"accepted durably: {accepted / elapsed:,.0f} samples/s ({accepted} samples in {elapsed:.2f} s)")
    print(f"time to 200 per batch: p50 {percentile(latencies, 50) * 1000:.0f} ms, p99 {percentile(latencies, 99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    if visible:
        print(f"push-to-sqlite visibility after the 200: median {statistics.median(visible) * 1000:.0f} ms, "
              f"p99 {percentile(visible, 99) * 1000:.0f} ms, max {max(visible) * 1000:.0f} ms ({len(visible)} batches)")
    if pending:
        print(f"not visible within 30 s: {len(pending)} batches")

if __name__ == "__main__":
    main()
