#!/usr/bin/env python3
"""Writes N canonical samples as NDJSON in healthrouter's line format (what `healthrouter dump`
writes and the `replay` source reads): a deterministic mix of five quantity types over ~5 years,
two sources, heart rates with a metadata key. Used by scripts/bench-migrate.sh.

    scripts/generate-ndjson.py --samples 1000000 --out samples.ndjson
"""
import argparse, datetime, uuid

TYPES = [("heartRate", "HKQuantityTypeIdentifierHeartRate", "count/min"),
         ("stepCount", "HKQuantityTypeIdentifierStepCount", "count"),
         ("activeEnergyBurned", "HKQuantityTypeIdentifierActiveEnergyBurned", "kcal"),
         ("distanceWalkingRunning", "HKQuantityTypeIdentifierDistanceWalkingRunning", "m"),
         ("basalEnergyBurned", "HKQuantityTypeIdentifierBasalEnergyBurned", "kcal")]

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    zone = datetime.timezone(datetime.timedelta(hours=1))
    base = datetime.datetime(2020, 1, 1, tzinfo=zone)
    namespace = uuid.UUID("3b241101-e2bb-4255-8caf-4136c566a962")
    with open(args.out, "w", encoding="utf-8") as out:
        for n in range(args.samples):
            kind = 0 if n % 20 < 9 else 1 + n % 4
            key, identifier, unit = TYPES[kind]
            start = base + datetime.timedelta(seconds=150 * n)
            end = start + datetime.timedelta(seconds=0 if kind == 0 else 60)
            value = 60 + n % 90 + (n % 7) / 4
            value_text = str(int(value)) if value == int(value) else repr(value)
            source = "iPhone" if n % 3 == 0 else "Apple Watch"
            metadata = ',"metadata":{"HKMetadataKeyHeartRateMotionContext":%d}' % (n % 3) if kind == 0 else ""
            out.write('{"uuid":"%s","type":"%s","start":"%s","end":"%s","value":%s,"unit":"%s","source":"%s"%s,'
                      '"identifier":"%s","kind":"quantity","sourceVersion":"17.2","device":"%s"}\n'
                      % (str(uuid.uuid5(namespace, str(n))).upper(), key, start.isoformat(), end.isoformat(),
                         value_text, unit, source, metadata, identifier, source))

if __name__ == "__main__":
    main()
