#!/usr/bin/env python3
"""Writes a synthetic Apple Health export (export.xml, or export.zip) for tests and benchmarks.

    generate-export.py --records N --out PATH [--zip] [--quirks] [--seed S]

The same arguments always give the same bytes. The mix imitates a real export: heart rate
(about 45 %), steps, active and basal energy, distance, sleep stages (by night, one after
another), resting heart rate, HRV records with beat lists, blood-pressure correlations
(whose members are also written as top-level Records, as the Health app does), other
quantities, workouts in the old style (total* attributes, WorkoutEvent, inline Location
routes) and the iOS 16 style (WorkoutStatistics, WorkoutActivity, WorkoutEvent,
WorkoutRoute with a FileReference to a GPX file), ActivitySummary per day, Me,
ClinicalRecord, Audiogram and VisionPrescription; metadata, and device descriptions with a
different 0x... address on every record.

--zip writes export.zip: apple_health_export/导出.xml (a localized name), export_cda.xml,
workout-routes/*.gpx (half before, half after the data file), an ECG CSV, the clinical records' FHIR
files, and macOS junk
(__MACOSX/, .DS_Store).

--quirks adds what breaks parsers: the malformed iOS 16 DTD (export version 12), a \\x0b
control character in a value, '&amp;' in a source name, HRV times with U+202F before PM and
with comma decimals, ISO 8601 dates on a few records, and a Record without startDate.

`--records N` draws N records; a blood-pressure draw writes two top-level <Record>s (the
members of its correlation), so the document holds a little more than N. A JSON summary of
what was written (counts per kind, and what a reader should emit) goes to standard output.
At 1,000,000 records the XML is about 430 MB.
"""

import argparse
import json
import math
import random
import sys
import zipfile

OFFSET = "-0800"
OFFSET_SECONDS = -8 * 3600
EPOCH_START = 1_640_995_200  # 2022-01-01 00:00:00 UTC
LOCAL_START = EPOCH_START - 0  # local wall-clock seconds are what we format
RECORDS_PER_DAY = 3000
DATA_FOLDER = "apple_health_export/"
DATA_NAME = "导出.xml"

WATCH = ("&lt;&lt;HKDevice: 0x{:09x}&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
         "hardware:Watch6,2, software:10.1&gt;")
PHONE = ("&lt;&lt;HKDevice: 0x{:09x}&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, "
         "hardware:iPhone14,5, software:17.1.1&gt;")
WATCH_SOURCE = "Jane’s Apple Watch"
PHONE_SOURCE = "Jane’s iPhone"

HMS = ["%02d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) for s in range(86400)]


def civil_from_days(days):
    """(year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm)."""
    days += 719468
    era = (days if days >= 0 else days - 146096) // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return (year + 1 if month <= 2 else year), month, day


class Clock:
    """Formats local wall-clock seconds as export dates, caching the day part."""

    def __init__(self):
        self.days = {}

    def day(self, local):
        number = local // 86400
        text = self.days.get(number)
        if text is None:
            text = "%04d-%02d-%02d" % civil_from_days(number)
            self.days[number] = text
        return text

    def date(self, local):
        return "%s %s %s" % (self.day(local), HMS[local % 86400], OFFSET)

    def iso(self, local):
        return "%sT%s-08:00" % (self.day(local), HMS[local % 86400])

    def time_of_day(self, local, hundredths, style):
        seconds = local % 86400
        hour, minute, second = seconds // 3600, seconds // 60 % 60, seconds % 60
        if style == "comma":
            return "%02d:%02d:%02d,%02d" % (hour, minute, second, hundredths)
        suffix = "PM" if hour >= 12 else "AM"
        hour12 = hour % 12 or 12
        space = "\u202f" if style == "narrow" else " "
        return "%d:%02d:%02d.%02d%s%s" % (hour12, minute, second, hundredths, space, suffix)


DTD_V14 = """<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 14 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate
  value CDATA #REQUIRED
>
<!ELEMENT Me EMPTY>
<!ATTLIST Me
  HKCharacteristicTypeIdentifierDateOfBirth                 CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBiologicalSex               CDATA #REQUIRED
  HKCharacteristicTypeIdentifierBloodType                   CDATA #REQUIRED
  HKCharacteristicTypeIdentifierFitzpatrickSkinType         CDATA #REQUIRED
  HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  unit          CDATA #IMPLIED
  value         CDATA #IMPLIED
  sourceName    CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED
  device        CDATA #IMPLIED
  creationDate  CDATA #IMPLIED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
<!ELEMENT Correlation ((MetadataEntry|Record)*)>
<!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
<!ELEMENT WorkoutActivity ((WorkoutEvent|WorkoutStatistics|MetadataEntry)*)>
<!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>
<!ATTLIST VisionPrescription
  type           CDATA #REQUIRED
  dateIssued     CDATA #REQUIRED
  expirationDate CDATA #IMPLIED
  brand          CDATA #IMPLIED
>
<!ELEMENT RightEye EMPTY>
<!ELEMENT LeftEye EMPTY>
<!ELEMENT Attachment EMPTY>
]>
"""

# The iOS 16 (export version 12) subset: the VisionPrescription ATTLIST is never closed,
# RightEye/LeftEye declarations sit inside it, and a stray '>' follows.
DTD_V12_BROKEN = """<!DOCTYPE HealthData [
<!-- HealthKit Export Version: 12 -->
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record
  type          CDATA #REQUIRED
  startDate     CDATA #REQUIRED
  endDate       CDATA #REQUIRED
>
<!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>
<!ATTLIST VisionPrescription
  type                 CDATA #REQUIRED
  dateIssued           CDATA #REQUIRED
  expirationDate       CDATA #IMPLIED
  brand                CDATA #IMPLIED
<!ELEMENT RightEye EMPTY>
<!ATTLIST RightEye
  sphere               CDATA #IMPLIED
  sphereUnit           CDATA #IMPLIED
>
<!ELEMENT LeftEye EMPTY>
<!ATTLIST LeftEye
  sphere               CDATA #IMPLIED
  sphereUnit           CDATA #IMPLIED
>
>
<!ELEMENT Attachment EMPTY>
]>
"""

# (weight, name) of the record kinds; the rest of the code switches on name.
MIX = [
    (45.0, "heart_rate"), (15.0, "steps"), (12.0, "active_energy"), (8.0, "basal_energy"),
    (8.0, "distance"), (4.0, "sleep"), (1.0, "hrv"), (1.0, "blood_pressure"),
    (1.5, "respiratory_rate"), (1.5, "oxygen_saturation"), (1.0, "stand_hour"), (0.5, "body_mass"),
    (0.5, "vo2max"), (1.0, "audio_exposure"), (0.05, "resting_heart_rate"),
]
# Sleep stages fall in the local night, one after the other (no two overlap), as a watch records them.
NIGHT_START, NIGHT_END = 22 * 3600, 7 * 3600
SLEEP_STAGES = ["HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepCore",
                "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM",
                "HKCategoryValueSleepAnalysisAwake"]


class Generator:
    def __init__(self, records, quirks, seed):
        self.records = records
        self.quirks = quirks
        self.rng = random.Random(seed)
        self.clock = Clock()
        self.days = max(2, -(-records // RECORDS_PER_DAY))
        self.start = EPOCH_START + OFFSET_SECONDS  # local seconds of 2021-12-31 16:00 -0800
        self.start -= self.start % 86400
        self.span = self.days * 86400
        total = sum(weight for weight, _ in MIX)
        self.cumulative = []
        running = 0.0
        for weight, name in MIX:
            running += weight / total
            self.cumulative.append((running, name))
        self.counts = {
            "records": 0, "quantity": 0, "category": 0, "correlation": 0, "correlation_members": 0,
            "workout": 0, "activity_summary": 0, "profile": 1, "other": 0, "hrv_records": 0, "hrv_beats": 0,
            "gpx_routes": 0, "gpx_points": 0, "location_routes": 0, "location_points": 0,
            "records_without_start_date": 0, "iso_date_records": 0, "workouts_with_statistics": 0,
        }
        self.blood_pressure = []
        self.sleep_end = 0  # local seconds where the last sleep stage ended
        self.workouts = self.plan_workouts()
        # Which record numbers carry a quirk.
        self.quirk_at = {}
        if quirks and records >= 10:
            positions = self.rng.sample(range(records), 6)
            self.quirk_at = {positions[0]: "no_start", positions[1]: "iso", positions[2]: "iso",
                             positions[3]: "iso", positions[4]: "control", positions[5]: "ampersand"}

    def device(self, template):
        return template.format(self.rng.getrandbits(36))

    # Workouts and routes are planned first, so that a zip can hold GPX files before export.xml.
    def plan_workouts(self):
        count = max(3, self.records // 2000)
        plans = []
        for number in range(count):
            start = self.start + (number * self.span) // count + 6 * 3600 + self.rng.randrange(3600)
            minutes = self.rng.randint(20, 75)
            style = "old" if number % 3 == 0 else "ios16"
            points = self.rng.randint(20, 60) if self.records < 10_000 else self.rng.randint(120, 600)
            plans.append({"number": number, "start": start, "minutes": minutes, "style": style,
                          "points": points, "seed": self.rng.getrandbits(32),
                          "gpx": "workout-routes/route_%s_%d.%02d%s.gpx" % (
                              self.clock.day(start), (start % 86400 // 3600) % 12 or 12,
                              start % 3600 // 60, "pm" if start % 86400 >= 43200 else "am")})
        return plans

    def route_points(self, plan):
        """(utc seconds, lat, lon, ele, speed, course) of a planned route."""
        rng = random.Random(plan["seed"])
        lat, lon = 37.33 + rng.random() / 100, -122.03 + rng.random() / 100
        utc = plan["start"] - OFFSET_SECONDS
        step = max(1, plan["minutes"] * 60 // plan["points"])
        for index in range(plan["points"]):
            lat += (rng.random() - 0.5) / 5000
            lon += (rng.random() - 0.5) / 5000
            yield utc + index * step, lat, lon, 10 + rng.random() * 20, 2 + rng.random() * 2, rng.random() * 360

    def gpx(self, plan):
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" '
                 'xmlns="http://www.topografix.com/GPX/1/1">\n <metadata>\n  <time>2024-03-01T10:00:00Z</time>\n'
                 ' </metadata>\n <trk>\n  <name>Route %s</name>\n  <trkseg>\n' % self.clock.day(plan["start"])]
        for utc, lat, lon, ele, speed, course in self.route_points(plan):
            parts.append('   <trkpt lon="%.6f" lat="%.6f"><ele>%.2f</ele><time>%sT%sZ</time>'
                         '<extensions><speed>%.2f</speed><course>%.1f</course><hAcc>3.5</hAcc><vAcc>2.1</vAcc>'
                         '</extensions></trkpt>\n' % (lon, lat, ele, self.clock.day(utc), HMS[utc % 86400], speed,
                                                      course))
        parts.append("  </trkseg>\n </trk>\n</gpx>\n")
        return "".join(parts)

    # The document, as a sequence of text pieces.
    def document(self):
        yield '<?xml version="1.0" encoding="UTF-8"?>\n'
        yield DTD_V12_BROKEN if self.quirks else DTD_V14
        yield '<HealthData locale="en_US">\n'
        export_local = self.start + self.span + 3600
        self.export_date = self.clock.date(export_local)
        yield ' <ExportDate value="%s"/>\n' % self.export_date
        yield (' <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-02-02" HKCharacteristicTypeIdentifierBiologicalSex='
               '"HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" '
               'HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" '
               'HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n')
        batch = []
        step = self.span / self.records if self.records else 1
        for number in range(self.records):
            batch.append(self.record(number, self.start + int(number * step)))
            if len(batch) >= 2000:
                yield "".join(batch)
                batch = []
        yield "".join(batch)
        for pair in self.blood_pressure:
            yield self.correlation(pair)
        for plan in self.workouts:
            yield self.workout(plan)
        for day in range(self.days):
            yield self.activity_summary(self.start + day * 86400)
        yield from self.others()
        yield "</HealthData>\n"

    def dates(self, local, seconds, iso=False):
        fmt = self.clock.iso if iso else self.clock.date
        return fmt(local + seconds + 5), fmt(local), fmt(local + seconds)

    def record(self, number, local):
        rng = self.rng
        quirk = self.quirk_at.get(number)
        draw = rng.random()
        kind = self.cumulative[-1][1]
        for edge, name in self.cumulative:
            if draw < edge:
                kind = name
                break
        self.counts["records"] += 1
        if quirk:
            kind = "steps"  # a plain record, so that the quirk shows exactly once
        sleep = self.sleep_slot(local) if kind == "sleep" else None
        if kind == "sleep" and sleep is None:
            kind = "heart_rate"  # no sleep stage by day, nor past the end of the night
        iso = quirk == "iso"
        if iso:
            self.counts["iso_date_records"] += 1
        if quirk == "no_start":
            self.counts["records_without_start_date"] += 1
            return ('  <Record type="HKQuantityTypeIdentifierStepCount" sourceName="%s" unit="count" '
                    'endDate="%s" value="12"/>\n' % (PHONE_SOURCE, self.clock.date(local)))
        if kind == "blood_pressure":
            return self.blood_pressure_records(local)
        if kind == "hrv":
            return self.hrv(local, iso)
        created, start, end = self.dates(local, 60, iso)
        extra = ""
        if kind == "heart_rate":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierHeartRate"'
            created, start, end = self.dates(local, 0, iso)
            unit, value = "count/min", str(rng.randint(48, 165))
            extra = '   <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="%d"/>\n' % rng.randint(0, 2)
        elif kind == "steps":
            phone = rng.random() < 0.5
            source, device = (PHONE_SOURCE, self.device(PHONE)) if phone else (WATCH_SOURCE, self.device(WATCH))
            head, unit, value = 'type="HKQuantityTypeIdentifierStepCount"', "count", str(rng.randint(2, 60))
        elif kind == "active_energy":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierActiveEnergyBurned"'
            unit, value = "kcal", "%.3f" % (rng.random() * 5)
        elif kind == "basal_energy":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierBasalEnergyBurned"'
            unit, value = "kcal", "%.3f" % (0.5 + rng.random())
        elif kind == "distance":
            source, device = PHONE_SOURCE, self.device(PHONE)
            head, unit, value = 'type="HKQuantityTypeIdentifierDistanceWalkingRunning"', "km", "%.5f" % (rng.random() / 5)
        elif kind == "sleep":
            source, device = ("Sleep &amp; Wake", None) if self.quirks and rng.random() < 0.3 else (WATCH_SOURCE, self.device(WATCH))
            created, start, end = self.dates(sleep[0], sleep[1], iso)
            head, unit, value = 'type="HKCategoryTypeIdentifierSleepAnalysis"', None, rng.choice(SLEEP_STAGES)
            extra = '   <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>\n'
        elif kind == "respiratory_rate":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierRespiratoryRate"'
            unit, value = "count/min", "%.1f" % (12 + rng.random() * 6)
        elif kind == "oxygen_saturation":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierOxygenSaturation"'
            unit, value = "%", "0.%02d" % rng.randint(90, 99)
            extra = '   <MetadataEntry key="HKMetadataKeyBarometricPressure" value="101.2 kPa"/>\n'
        elif kind == "stand_hour":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKCategoryTypeIdentifierAppleStandHour"'
            unit, value = None, rng.choice(["HKCategoryValueAppleStandHourStood", "HKCategoryValueAppleStandHourIdle"])
        elif kind == "body_mass":
            source, device, head = "Withings", None, 'type="HKQuantityTypeIdentifierBodyMass"'
            unit, value = "kg", "%.1f" % (60 + rng.random() * 5)
            extra = ('   <MetadataEntry key="HKWasUserEntered" value="0"/>\n'
                     '   <MetadataEntry key="Withings Link" value="withings-bd2://timeline/measure?id=%d"/>\n'
                     % rng.getrandbits(30))
        elif kind == "vo2max":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierVO2Max"'
            unit, value = "mL/min·kg", "%.2f" % (35 + rng.random() * 10)
            extra = '   <MetadataEntry key="HKVO2MaxTestType" value="2"/>\n'
        elif kind == "resting_heart_rate":
            source, device, head = WATCH_SOURCE, self.device(WATCH), 'type="HKQuantityTypeIdentifierRestingHeartRate"'
            unit, value = "count/min", str(rng.randint(50, 66))
        else:  # audio_exposure
            source, device = PHONE_SOURCE, self.device(PHONE)
            head, unit, value = 'type="HKQuantityTypeIdentifierHeadphoneAudioExposure"', "dBASPL", "%.2f" % (50 + rng.random() * 30)
        if quirk == "control":
            extra += '   <MetadataEntry key="HKMetadataKeyUserComment" value="felt\x0bgreat"/>\n'
        if quirk == "ampersand":
            source = "Fitness &amp; Co"
        self.counts["category" if unit is None else "quantity"] += 1
        attributes = '%s sourceName="%s" sourceVersion="10.1"' % (head, source)
        if device:
            attributes += ' device="%s"' % device
        if unit:
            attributes += ' unit="%s"' % unit
        attributes += ' creationDate="%s" startDate="%s" endDate="%s" value="%s"' % (created, start, end, value)
        if extra:
            return "  <Record %s>\n%s  </Record>\n" % (attributes, extra)
        return "  <Record %s/>\n" % attributes

    def sleep_slot(self, local):
        """(start, seconds) of a sleep stage drawn at `local`: after the previous stage, within
        the night around `local`; None by day or when the night is full."""
        time_of_day = local % 86400
        if time_of_day >= NIGHT_START:
            night_end = local - time_of_day + 86400 + NIGHT_END
        elif time_of_day < NIGHT_END:
            night_end = local - time_of_day + NIGHT_END
        else:
            return None
        start = max(local, self.sleep_end)
        if night_end - start < 300:
            return None
        seconds = min(self.rng.randint(300, 1800), night_end - start)
        self.sleep_end = start + seconds
        return start, seconds

    def hrv(self, local, iso):
        rng = self.rng
        self.counts["quantity"] += 1
        self.counts["hrv_records"] += 1
        created, start, end = self.dates(local, 60, iso)
        beats = rng.randint(6, 14)
        self.counts["hrv_beats"] += beats
        styles = ["plain"] if not self.quirks else ["plain", "narrow", "comma"]
        style = styles[self.counts["hrv_records"] % len(styles)]
        lines = []
        for index in range(beats):
            offset = index * 85 // 100
            hundredths = (index * 85) % 100
            lines.append('     <InstantaneousBeatsPerMinute bpm="%d" time="%s"/>\n'
                         % (rng.randint(55, 80), self.clock.time_of_day(local + offset, hundredths, style)))
        return ('  <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="%s" sourceVersion="10.1" '
                'device="%s" unit="ms" creationDate="%s" startDate="%s" endDate="%s" value="%.4f">\n'
                '   <HeartRateVariabilityMetadataList>\n%s   </HeartRateVariabilityMetadataList>\n  </Record>\n'
                % (WATCH_SOURCE, self.device(WATCH), created, start, end, 20 + rng.random() * 60, "".join(lines)))

    def blood_pressure_records(self, local):
        rng = self.rng
        # Both members count as top-level Records (the pair takes one draw but two elements).
        self.counts["records"] += 1
        self.counts["quantity"] += 2
        systolic, diastolic = rng.randint(105, 140), rng.randint(65, 90)
        date = self.clock.date(local)
        pair = (date, systolic, diastolic)
        self.blood_pressure.append(pair)
        return self.blood_pressure_member(pair, "Systolic", systolic, "  ") + \
            self.blood_pressure_member(pair, "Diastolic", diastolic, "  ")

    @staticmethod
    def blood_pressure_member(pair, which, value, indent):
        date = pair[0]
        return ('%s<Record type="HKQuantityTypeIdentifierBloodPressure%s" sourceName="Omron" sourceVersion="7.1" '
                'unit="mmHg" creationDate="%s" startDate="%s" endDate="%s" value="%d">\n'
                '%s <MetadataEntry key="HKWasUserEntered" value="0"/>\n%s</Record>\n'
                % (indent, which, date, date, date, value, indent, indent))

    def correlation(self, pair):
        self.counts["correlation"] += 1
        self.counts["correlation_members"] += 2
        date = pair[0]
        return (' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="7.1" '
                'creationDate="%s" startDate="%s" endDate="%s">\n  <MetadataEntry key="HKWasUserEntered" value="0"/>\n%s%s'
                ' </Correlation>\n' % (date, date, date, self.blood_pressure_member(pair, "Systolic", pair[1], "  "),
                                       self.blood_pressure_member(pair, "Diastolic", pair[2], "  ")))

    def workout(self, plan):
        self.counts["workout"] += 1
        start_local = plan["start"]
        minutes = plan["minutes"]
        end_local = start_local + minutes * 60
        created, start, end = self.clock.date(end_local + 10), self.clock.date(start_local), self.clock.date(end_local)
        distance = minutes * 0.16
        energy = minutes * 9.5
        head = (' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="%d" durationUnit="min" '
                % minutes)
        pause = self.clock.date(start_local + 600)
        resume = self.clock.date(start_local + 660)
        events = ('  <WorkoutEvent type="HKWorkoutEventTypePause" date="%s"/>\n'
                  '  <WorkoutEvent type="HKWorkoutEventTypeResume" date="%s"/>\n' % (pause, resume))
        if plan["style"] == "old":
            text = head + ('totalDistance="%.3f" totalDistanceUnit="km" totalEnergyBurned="%.1f" '
                           'totalEnergyBurnedUnit="kcal" sourceName="%s" sourceVersion="9.3" device="%s" '
                           'creationDate="%s" startDate="%s" endDate="%s">\n'
                           % (distance, energy, WATCH_SOURCE, self.device(WATCH), created, start, end))
            text += '  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n' + events
            if plan["number"] % 2 == 0:
                self.counts["location_routes"] += 1
                self.counts["location_points"] += 5
                text += ('  <WorkoutRoute sourceName="%s" sourceVersion="9.3" creationDate="%s" startDate="%s" '
                         'endDate="%s">\n' % (WATCH_SOURCE, created, start, end))
                for index in range(5):
                    text += ('   <Location date="%s" latitude="37.33%02d" longitude="-122.03%02d" altitude="11.9" '
                             'horizontalAccuracy="5" verticalAccuracy="3" course="-1" speed="2.4"/>\n'
                             % (self.clock.date(start_local + index * 60), index, index))
                text += "  </WorkoutRoute>\n"
            return text + " </Workout>\n"
        self.counts["workouts_with_statistics"] += 1
        self.counts["gpx_routes"] += 1
        self.counts["gpx_points"] += plan["points"]
        text = head + ('sourceName="%s" sourceVersion="10.1" device="%s" creationDate="%s" startDate="%s" '
                       'endDate="%s">\n' % (WATCH_SOURCE, self.device(WATCH), created, start, end))
        text += ('  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n'
                 '  <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>\n'
                 '  <MetadataEntry key="HKElevationAscended" value="4500 cm"/>\n') + events
        statistics = ('  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="%s" endDate="%s" '
                      'sum="%.1f" unit="kcal"/>\n'
                      '  <WorkoutStatistics type="HKQuantityTypeIdentifierBasalEnergyBurned" startDate="%s" endDate="%s" '
                      'sum="%.1f" unit="kcal"/>\n'
                      '  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="%s" '
                      'endDate="%s" sum="%.3f" unit="km"/>\n'
                      '  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="%s" endDate="%s" '
                      'average="142" minimum="98" maximum="171" unit="count/min"/>\n'
                      % (start, end, energy, start, end, minutes * 1.2, start, end, distance, start, end))
        text += statistics
        text += ('  <WorkoutActivity uuid="%08X-0000-4000-8000-%012X" startDate="%s" endDate="%s" duration="%d" '
                 'durationUnit="min">\n   <WorkoutEvent type="HKWorkoutEventTypeSegment" date="%s" duration="5" '
                 'durationUnit="min"/>\n%s   <MetadataEntry key="WOIntervalStepKeyPath" value="0.0.0"/>\n'
                 '  </WorkoutActivity>\n'
                 % (plan["seed"], plan["number"], start, end, minutes, start, statistics.replace("  <", "   <")))
        text += ('  <WorkoutRoute sourceName="%s" sourceVersion="10.1" creationDate="%s" startDate="%s" endDate="%s">\n'
                 '   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>\n'
                 '   <FileReference path="/%s"/>\n  </WorkoutRoute>\n'
                 % (WATCH_SOURCE, created, start, end, plan["gpx"]))
        return text + " </Workout>\n"

    def activity_summary(self, local):
        self.counts["activity_summary"] += 1
        rng = self.rng
        return (' <ActivitySummary dateComponents="%s" activeEnergyBurned="%.3f" activeEnergyBurnedGoal="500" '
                'activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="%d" '
                'appleExerciseTimeGoal="30" appleStandHours="%d" appleStandHoursGoal="12"/>\n'
                % (self.clock.day(local), 300 + rng.random() * 400, rng.randint(5, 90), rng.randint(6, 14)))

    def others(self):
        received = self.clock.date(self.start + 3600)
        for index, kind in enumerate(["Immunization", "DiagnosticReport", "Procedure"]):
            self.counts["other"] += 1
            self.counts["clinical_records"] = self.counts.get("clinical_records", 0) + 1
            yield (' <ClinicalRecord type="HKClinicalTypeIdentifier%sRecord" identifier="%s-%d" sourceName="City Clinic" '
                   'sourceURL="https://fhir.example.org/api/%s" fhirVersion="4.0.1" receivedDate="%s" '
                   'resourceFilePath="/clinical-records/%s-%08d.json"/>\n'
                   % (kind, kind, index, kind, received, kind, index))
        self.counts["other"] += 1
        date = self.clock.date(self.start + 7200)
        points = "".join('  <SensitivityPoint frequencyValue="%d" frequencyUnit="Hz" leftEarValue="%d" leftEarUnit="dBHL" '
                         'rightEarValue="%d" rightEarUnit="dBHL"/>\n' % (frequency, 10 + index, 12 + index)
                         for index, frequency in enumerate([250, 500, 1000, 2000, 4000, 8000]))
        yield (' <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" sourceVersion="5.2" creationDate="%s" '
               'startDate="%s" endDate="%s">\n%s </Audiogram>\n' % (date, date, date, points))
        self.counts["other"] += 1
        issued = self.clock.date(self.start + 10800)
        yield (' <VisionPrescription type="HKGlassesPrescription" dateIssued="%s" expirationDate="%s" brand="Acme">\n'
               '  <RightEye sphere="-1.25" sphereUnit="D" cylinder="-0.5" cylinderUnit="D" axis="90" axisUnit="deg"/>\n'
               '  <LeftEye sphere="-1.5" sphereUnit="D"/>\n  <Attachment identifier="4F1C0D2E"/>\n'
               '  <MetadataEntry key="Optician" value="Eyes &amp; Co"/>\n </VisionPrescription>\n' % (issued, issued))

    def summary(self, data_entry):
        counts = dict(self.counts)
        counts["data_entry"] = data_entry
        counts["export_date"] = self.export_date
        counts["days"] = self.days
        return counts


def clinical_resource(kind, index):
    """The FHIR resource (R4, JSON) of the generator's ClinicalRecord of `kind` at `index`."""
    resource = {"resourceType": kind, "id": "%s-%d" % (kind, index), "status": "completed",
                "subject": {"reference": "Patient/1"}, "code": {"text": {"Immunization": "Influenza vaccine",
                "DiagnosticReport": "Lipid panel", "Procedure": "Blood draw"}[kind]}}
    return json.dumps(resource, indent=2) + "\n"


def electrocardiogram():
    """An Apple Watch ECG as the export writes it: header rows (a quoted value with commas), blank
    rows, lead and unit, then 30 seconds of voltages at 512 Hz, one a line (a trailing comma on
    some); a fixed waveform, so the file is the same in every run."""
    header = ("Name,Jane Appleseed\nDate of Birth,1990-02-02\nRecorded Date,2022-01-01 09:15:30 -0800\n"
              "Classification,Sinus Rhythm\nSymptoms,\"Rapid, pounding, or fluttering heartbeat\"\n"
              "Software Version,1.90\nDevice,\"Watch6,2\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n")
    lines = []
    for index in range(15360):
        phase = (index % 430) / 430.0
        voltage = 40 * math.sin(2 * math.pi * index / 512) + (900 if 0.30 < phase < 0.32 else 0)
        lines.append("%.3f%s" % (voltage, "," if index % 1000 == 999 else ""))
    return header + "\n".join(lines) + "\n"


def write_xml(generator, stream):
    for piece in generator.document():
        stream.write(piece.encode("utf-8"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, required=True, help="number of records to draw")
    parser.add_argument("--out", required=True, help="file to write (export.xml, or export.zip with --zip)")
    parser.add_argument("--zip", action="store_true", help="write export.zip with GPX routes and junk entries")
    parser.add_argument("--quirks", action="store_true", help="add the quirks that break parsers")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--compresslevel", type=int, default=6, help="deflate level for --zip (default 6)")
    arguments = parser.parse_args()
    generator = Generator(arguments.records, arguments.quirks, arguments.seed)
    if not arguments.zip:
        with open(arguments.out, "wb", buffering=1 << 20) as stream:
            write_xml(generator, stream)
        json.dump(generator.summary(None), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    half = len(generator.workouts) // 2
    fixed_time = (2024, 3, 1, 10, 0, 0)

    def entry(name):
        info = zipfile.ZipInfo(name, date_time=fixed_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        return info

    with zipfile.ZipFile(arguments.out, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=arguments.compresslevel) as archive:
        # A GPX file for each workout that references one (an old-style workout's route, if any, is
        # inline Locations): a real export holds no route file no workout names.
        for plan in generator.workouts[:half]:
            if plan["style"] == "old":
                continue
            archive.writestr(entry(DATA_FOLDER + plan["gpx"]), generator.gpx(plan))
        archive.writestr(entry("__MACOSX/" + DATA_FOLDER + "._" + DATA_NAME), b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")
        with archive.open(entry(DATA_FOLDER + DATA_NAME), "w", force_zip64=True) as stream:
            write_xml(generator, stream)
        archive.writestr(entry(DATA_FOLDER + "export_cda.xml"),
                         '<?xml version="1.0" encoding="UTF-8"?>\n<ClinicalDocument xmlns="urn:hl7-org:v3">\n'
                         '</ClinicalDocument>\n<junk/>\n')
        for plan in generator.workouts[half:]:
            if plan["style"] == "old":
                continue
            archive.writestr(entry(DATA_FOLDER + plan["gpx"]), generator.gpx(plan))
        archive.writestr(entry(DATA_FOLDER + "electrocardiograms/ecg_2022-01-01.csv"), electrocardiogram())
        for index, kind in enumerate(["Immunization", "DiagnosticReport", "Procedure"]):
            archive.writestr(entry(DATA_FOLDER + "clinical-records/%s-%08d.json" % (kind, index)), clinical_resource(kind, index))
        generator.counts["electrocardiograms"] = 1
        archive.writestr(entry(DATA_FOLDER + ".DS_Store"), b"\x00\x00\x00\x01Bud1")
    json.dump(generator.summary(DATA_FOLDER + DATA_NAME), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
