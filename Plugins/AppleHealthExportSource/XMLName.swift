/// The element and attribute names the export and GPX handlers act on.
/// Everything else is `.other` and is kept generically or reported as skipped.
enum XMLName: UInt8, Sendable {
    case other

    // export.xml elements
    case healthData, exportDate, me, record, metadataEntry, heartRateVariabilityMetadataList
    case instantaneousBeatsPerMinute, correlation, workout, workoutEvent, workoutStatistics
    case workoutActivity, workoutRoute, fileReference, location, activitySummary

    // export.xml attributes
    case type, unit, value, sourceName, sourceVersion, device, creationDate, startDate, endDate
    case key, bpm, time, workoutActivityType, duration, durationUnit, totalDistance, totalDistanceUnit
    case totalEnergyBurned, totalEnergyBurnedUnit, date, average, minimum, maximum, sum, uuid, path
    case latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, speed
    case dateComponents, locale

    // GPX elements and attributes (`time`, `speed`, `course` are shared with the export)
    case trkpt, lat, lon, ele, hAcc, vAcc

    /// The spelling of each name in the documents.
    static let byText: [String: XMLName] = [
        "HealthData": .healthData, "ExportDate": .exportDate, "Me": .me, "Record": .record,
        "MetadataEntry": .metadataEntry, "HeartRateVariabilityMetadataList": .heartRateVariabilityMetadataList,
        "InstantaneousBeatsPerMinute": .instantaneousBeatsPerMinute, "Correlation": .correlation,
        "Workout": .workout, "WorkoutEvent": .workoutEvent, "WorkoutStatistics": .workoutStatistics,
        "WorkoutActivity": .workoutActivity, "WorkoutRoute": .workoutRoute, "FileReference": .fileReference,
        "Location": .location, "ActivitySummary": .activitySummary,
        "type": .type, "unit": .unit, "value": .value, "sourceName": .sourceName, "sourceVersion": .sourceVersion,
        "device": .device, "creationDate": .creationDate, "startDate": .startDate, "endDate": .endDate,
        "key": .key, "bpm": .bpm, "time": .time, "workoutActivityType": .workoutActivityType,
        "duration": .duration, "durationUnit": .durationUnit, "totalDistance": .totalDistance,
        "totalDistanceUnit": .totalDistanceUnit, "totalEnergyBurned": .totalEnergyBurned,
        "totalEnergyBurnedUnit": .totalEnergyBurnedUnit, "date": .date, "average": .average,
        "minimum": .minimum, "maximum": .maximum, "sum": .sum, "uuid": .uuid, "path": .path,
        "latitude": .latitude, "longitude": .longitude, "altitude": .altitude,
        "horizontalAccuracy": .horizontalAccuracy, "verticalAccuracy": .verticalAccuracy,
        "course": .course, "speed": .speed, "dateComponents": .dateComponents, "locale": .locale,
        "trkpt": .trkpt, "lat": .lat, "lon": .lon, "ele": .ele, "hAcc": .hAcc, "vAcc": .vAcc,
        // Exports of iOS 8 and 9 name a record's source `source`.
        "source": .sourceName,
    ]
}
