import HealthRouterCore

/// Builds one `Workout` sample from a `<Workout>` element and its children: metadata,
/// `WorkoutEvent`, `WorkoutStatistics`, `WorkoutActivity` (iOS 16+) and `WorkoutRoute`
/// (a `FileReference` to a GPX file, or inline `Location`s in old exports).
///
/// Totals come from the `total*` attributes when present, else from the workout's
/// statistics (iOS 16+ exports, also for old workouts re-exported today), converted to
/// metres and kilocalories.
final class WorkoutBuilder {
    private(set) var sample: Sample
    private var workout: Workout
    private var attributeDistance: (value: Double, unit: String?)?
    private var attributeEnergy: (value: Double, unit: String?)?

    private var event: WorkoutEvent?
    private var activity: WorkoutActivity?
    private var route: WorkoutRoute?

    /// The most events, statistics, activities and routes one workout keeps, all levels together
    /// (a real one has a few hundred): a few MiB of zip holding millions of them took the memory.
    static let maximumParts = 100_000
    /// The most route points one workout keeps, in all its routes together: a GPX file's limit.
    static let maximumRoutePoints = GPXRouteParser.maximumPoints
    private var partsKept = 0
    private var routePointsKept = 0
    private var partsCut = false
    private var routePointsCut = false

    /// Reports what could not be used: a reason and where (`line 1234`).
    private let skip: (_ reason: String, _ location: String) -> Void

    /// Reports what could not be used on `line`.
    private func report(_ reason: String, _ line: Int) { skip(reason, "line \(line)") }

    /// Starts a workout from its attributes; nil (after reporting) without a valid start, or
    /// with an `endDate` that cannot be read or lies before the start.
    init?(_ attributes: SAXAttributes, reader: ExportValueReader, userId: String?, line: Int,
          skip: @escaping (_ reason: String, _ location: String) -> Void) {
        self.skip = skip
        let report = { (reason: String, line: Int) in skip(reason, "line \(line)") }
        var activityType = ""
        var sourceName = ""
        var sourceVersion: String?
        var device: String?
        var created: Timestamp?
        var start: Timestamp?
        var end: Timestamp?
        var hasStart = false
        var hasEnd = false
        var duration: Double?
        var durationUnit: String?
        var distance: Double?
        var distanceUnit: String?
        var energy: Double?
        var energyUnit: String?
        var extras: [MetadataEntry] = []
        // What is reported of a workout that is kept: one left out is counted once, for why.
        var notes: [String] = []
        let note = { (reason: String, _: Int) in notes.append(reason) }
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .workoutActivityType: activityType = reader.types.string(value)
            case .sourceName: sourceName = reader.sources.string(value)
            case .sourceVersion: sourceVersion = reader.sources.string(value)
            case .device: device = reader.device(value)
            case .creationDate:
                created = reader.date(value)
                if created == nil, !value.isEmpty {
                    extras.append(reader.extraAttribute(attributes, index, asText: true))
                    notes.append("Workout creationDate that is not a date kept as text in metadata")
                }
            case .startDate: hasStart = true; start = reader.date(value)
            case .endDate: hasEnd = true; end = reader.date(value)
            case .duration: duration = Self.number(value, "Workout duration", line: line, report: note)
            case .durationUnit: durationUnit = reader.units.string(value)
            case .totalDistance: distance = Self.number(value, "Workout totalDistance", line: line, report: note)
            case .totalDistanceUnit: distanceUnit = reader.units.string(value)
            case .totalEnergyBurned: energy = Self.number(value, "Workout totalEnergyBurned", line: line, report: note)
            case .totalEnergyBurnedUnit: energyUnit = reader.units.string(value)
            default: extras.append(reader.extraAttribute(attributes, index))
            }
        }
        guard let start else {
            report(hasStart ? "Workout with an unreadable startDate" : "Workout without a startDate", line)
            return nil
        }
        if let problem = ExportElementHandler.endProblem(end, hasEnd: hasEnd, start: start) {
            report("Workout \(problem)", line)
            return nil
        }
        for reason in notes { report(reason, line) }
        workout = Workout(activityType: activityType)
        if let duration {
            workout.durationSeconds = WorkoutUnits.seconds(duration, unit: durationUnit)
            if workout.durationSeconds == nil { report("Workout duration in an unknown unit left out", line) }
        }
        if let distance { attributeDistance = (distance, distanceUnit) }
        if let energy { attributeEnergy = (energy, energyUnit) }
        sample = Sample(id: "", type: "HKWorkoutTypeIdentifier", kind: .workout, start: start, end: end ?? start,
                        sourceName: sourceName, sourceVersion: sourceVersion, device: device, createdAt: created,
                        metadata: extras, userId: userId)
    }

    /// Takes a child element opened under `parent`; false when a workout has no place
    /// for it (the caller skips and reports it).
    func start(_ element: XMLName, parent: XMLName, _ attributes: SAXAttributes, reader: ExportValueReader,
               routes: RouteFileResolver, line: Int) -> Bool {
        switch (parent, element) {
        case (.workout, .metadataEntry):
            addMetadata(attributes, reader: reader, line: line) { ExportElementHandler.addMetadata($0, to: &sample) }
        case (.workoutEvent, .metadataEntry):
            addMetadata(attributes, reader: reader, line: line) { Self.report(of: event?.metadata.set($0, limit: ExportElementHandler.metadataLimit)) }
        case (.workoutActivity, .metadataEntry):
            addMetadata(attributes, reader: reader, line: line) { Self.report(of: activity?.metadata.set($0, limit: ExportElementHandler.metadataLimit)) }
        case (.workoutRoute, .metadataEntry):
            addMetadata(attributes, reader: reader, line: line) { Self.report(of: route?.metadata.set($0, limit: ExportElementHandler.metadataLimit)) }
        case (.workout, .workoutEvent), (.workoutActivity, .workoutEvent):
            event = keepPart(line: line) ? workoutEvent(attributes, reader: reader, line: line) : nil
        case (.workout, .workoutStatistics):
            guard keepPart(line: line) else { break }
            if let statistic = statistic(attributes, reader: reader, line: line) { workout.statistics.append(statistic) }
        case (.workoutActivity, .workoutStatistics):
            guard keepPart(line: line) else { break }
            if let statistic = statistic(attributes, reader: reader, line: line) { activity?.statistics.append(statistic) }
        case (.workout, .workoutActivity):
            activity = keepPart(line: line) ? workoutActivity(attributes, reader: reader, line: line) : nil
        case (.workout, .workoutRoute):
            route = keepPart(line: line) ? workoutRoute(attributes, reader: reader, line: line) : nil
        case (.workoutRoute, .fileReference):
            // A route left out (past `maximumParts`) reads no file, nor one past the points kept.
            guard route != nil, keepRoutePoints(line: line) else { break }
            for index in 0..<attributes.count where reader.names.name(attributes.name(index)) == .path {
                let path = AttributeText.string(attributes.value(index))
                route?.filePath = path
                switch routes.points(forReference: path) {
                case .found(let points):
                    // A GPX file's times are UTC (`Z`): its points take the workout's offset, as an
                    // old export's inline Locations have theirs (a recorded zone replaces both).
                    let offset = sample.start.utcOffsetSeconds
                    let kept = points.prefix(Self.maximumRoutePoints - routePointsKept)
                    routePointsKept += kept.count
                    route?.points.append(contentsOf: kept.lazy.map { point in
                        var local = point
                        if local.time.utcOffsetSeconds == 0 { local.time.utcOffsetSeconds = offset }
                        return local
                    })
                    if kept.count < points.count { _ = keepRoutePoints(line: line) }
                case .missing: report("WorkoutRoute file not found in the export (route kept without points, or with those an earlier import brought)", line)
                case .refused: break
                case .exhausted:
                    skip("WorkoutRoute whose file gave its points to \(RouteFileUses.maximum) workouts before (an export gives each "
                             + "route a file of its own): route kept without points", "line \(line) (\(path))")
                }
            }
        case (.workoutRoute, .location):
            guard route != nil, keepRoutePoints(line: line) else { break }
            if let point = location(attributes, reader: reader, line: line) {
                if point.isUsable {
                    routePointsKept += 1
                    route?.points.append(point)
                } else {
                    report("Location at no place on Earth, or with a number out of a double's range", line)
                }
            } else {
                report("Location without a valid date, latitude or longitude", line)
            }
        default:
            return false
        }
        return true
    }

    /// Whether one more event, statistic, activity or route is kept; past `maximumParts`, reports
    /// once that the rest is left out.
    private func keepPart(line: Int) -> Bool {
        guard partsKept < Self.maximumParts else {
            if !partsCut {
                partsCut = true
                report("Workout with more than \(NumberText.grouped(Self.maximumParts)) events, statistics, activities and routes: the rest left out", line)
            }
            return false
        }
        partsKept += 1
        return true
    }

    /// Whether the workout keeps route points still; once it holds `maximumRoutePoints`, reports
    /// once that the rest is left out.
    private func keepRoutePoints(line: Int) -> Bool {
        guard routePointsKept >= Self.maximumRoutePoints else { return true }
        if !routePointsCut {
            routePointsCut = true
            report("Workout with more than \(NumberText.grouped(Self.maximumRoutePoints)) route points: the rest left out", line)
        }
        return false
    }

    /// Closes a child element.
    func end(_ element: XMLName) {
        switch element {
        case .workoutEvent:
            guard let finished = event else { return }
            event = nil
            if activity != nil { activity?.events.append(finished) } else { workout.events.append(finished) }
        case .workoutActivity:
            if let finished = activity { workout.activities.append(finished) }
            activity = nil
        case .workoutRoute:
            if let finished = route { workout.routes.append(finished) }
            route = nil
        default:
            break
        }
    }

    /// The finished sample (not yet normalised).
    func finish(line: Int) -> Sample {
        if let (value, unit) = attributeDistance {
            workout.totalDistanceMeters = WorkoutUnits.meters(value, unit: unit)
            if workout.totalDistanceMeters == nil { report("Workout totalDistance in an unknown unit left out", line) }
        }
        if let (value, unit) = attributeEnergy {
            workout.totalEnergyBurnedKilocalories = WorkoutUnits.kilocalories(value, unit: unit)
            if workout.totalEnergyBurnedKilocalories == nil {
                report("Workout totalEnergyBurned in an unknown unit left out", line)
            }
        }
        applyStatistics(workout.statistics.isEmpty ? workout.activities.flatMap(\.statistics) : workout.statistics)
        sample.detail = .workout(workout)
        return sample
    }

    /// Fills the totals the attributes did not give, or gave as 0 (an app that wrote no total),
    /// from statistics when they sum to more (sums add up across activities; heart-rate figures
    /// only come from a single statistic).
    private func applyStatistics(_ statistics: [WorkoutStatistic]) {
        var distance: Double?
        var energy: Double?
        var basal: Double?
        var heartRates: [WorkoutStatistic] = []
        for statistic in statistics {
            let type = statistic.type
            if type.hasPrefix("HKQuantityTypeIdentifierDistance"), let sum = statistic.sum,
               let meters = WorkoutUnits.meters(sum, unit: statistic.unit) {
                distance = (distance ?? 0) + meters
            } else if type == "HKQuantityTypeIdentifierActiveEnergyBurned", let sum = statistic.sum,
                      let kilocalories = WorkoutUnits.kilocalories(sum, unit: statistic.unit) {
                energy = (energy ?? 0) + kilocalories
            } else if type == "HKQuantityTypeIdentifierBasalEnergyBurned", let sum = statistic.sum,
                      let kilocalories = WorkoutUnits.kilocalories(sum, unit: statistic.unit) {
                basal = (basal ?? 0) + kilocalories
            } else if type == "HKQuantityTypeIdentifierHeartRate" {
                heartRates.append(statistic)
            }
        }
        if (workout.totalDistanceMeters ?? 0) == 0, let distance, distance > 0 || workout.totalDistanceMeters == nil {
            workout.totalDistanceMeters = distance
        }
        if (workout.totalEnergyBurnedKilocalories ?? 0) == 0, let energy, energy > 0 || workout.totalEnergyBurnedKilocalories == nil {
            workout.totalEnergyBurnedKilocalories = energy
        }
        if workout.totalBasalEnergyBurnedKilocalories == nil { workout.totalBasalEnergyBurnedKilocalories = basal }
        if heartRates.count == 1, let heartRate = heartRates.first {
            workout.averageHeartRate = heartRate.average.flatMap { WorkoutUnits.beatsPerMinute($0, unit: heartRate.unit) }
            workout.minimumHeartRate = heartRate.minimum.flatMap { WorkoutUnits.beatsPerMinute($0, unit: heartRate.unit) }
            workout.maximumHeartRate = heartRate.maximum.flatMap { WorkoutUnits.beatsPerMinute($0, unit: heartRate.unit) }
        }
    }

    /// Hands the `MetadataEntry` to `add`, which says why it is reported, when it is.
    private func addMetadata(_ attributes: SAXAttributes, reader: ExportValueReader, line: Int,
                             _ add: (MetadataEntry) -> String?) {
        guard let entry = reader.metadataEntry(attributes) else { return report("MetadataEntry without a key", line) }
        if let reason = add(entry) { report(reason, line) }
    }

    /// Why a part's `MetadataEntry` is reported, when it is (none when the part is not open).
    private static func report(of outcome: [MetadataEntry].SetOutcome?) -> String? {
        outcome.flatMap(ExportElementHandler.report(of:))
    }

    /// A numeric attribute's value; a text that is not one (`duration="abc"`) is reported,
    /// not left out silently, and nil.
    private static func number(_ value: UnsafeBufferPointer<UInt8>, _ what: String, line: Int,
                               report: (_ reason: String, _ line: Int) -> Void) -> Double? {
        if let number = DecimalNumber.parse(value) { return number }
        if !value.isEmpty { report("\(what) that is not a number left out", line) }
        return nil
    }

    private func workoutEvent(_ attributes: SAXAttributes, reader: ExportValueReader, line: Int) -> WorkoutEvent? {
        var type = ""
        var date: Timestamp?
        var duration: Double?
        var durationUnit: String?
        var extras: [MetadataEntry] = []
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .type: type = reader.types.string(value)
            case .date: date = reader.date(value)
            case .duration: duration = Self.number(value, "WorkoutEvent duration", line: line, report: report)
            case .durationUnit: durationUnit = reader.units.string(value)
            // An attribute it has no field for is kept in its metadata, as a workout's or an activity's.
            default: extras.append(reader.extraAttribute(attributes, index))
            }
        }
        guard let date else {
            report("WorkoutEvent without a valid date", line)
            return nil
        }
        return WorkoutEvent(type: type, date: date,
                            durationSeconds: seconds(duration, unit: durationUnit, of: "WorkoutEvent", line: line),
                            metadata: extras)
    }

    private func statistic(_ attributes: SAXAttributes, reader: ExportValueReader, line: Int) -> WorkoutStatistic? {
        var statistic = WorkoutStatistic(type: "", start: sample.start, end: sample.end)
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .type: statistic.type = reader.types.string(value)
            case .startDate:
                if let date = date(value, "WorkoutStatistics startDate", instead: "the workout's", reader: reader, line: line) {
                    statistic.start = date
                }
            case .endDate:
                if let date = date(value, "WorkoutStatistics endDate", instead: "the workout's", reader: reader, line: line) {
                    statistic.end = date
                }
            case .average: statistic.average = Self.number(value, "WorkoutStatistics average", line: line, report: report)
            case .minimum: statistic.minimum = Self.number(value, "WorkoutStatistics minimum", line: line, report: report)
            case .maximum: statistic.maximum = Self.number(value, "WorkoutStatistics maximum", line: line, report: report)
            case .sum: statistic.sum = Self.number(value, "WorkoutStatistics sum", line: line, report: report)
            case .unit: statistic.unit = reader.units.string(value)
            default: Self.leftOut(attributes, index, of: "WorkoutStatistics", reader: reader, line: line, report: report)
            }
        }
        guard !statistic.type.isEmpty else {
            report("WorkoutStatistics without a type", line)
            return nil
        }
        return statistic
    }

    private func workoutActivity(_ attributes: SAXAttributes, reader: ExportValueReader, line: Int) -> WorkoutActivity {
        var activity = WorkoutActivity(id: "", start: sample.start)
        var duration: Double?
        var durationUnit: String?
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .uuid: activity.id = AttributeText.string(value)
            case .workoutActivityType: activity.activityType = reader.types.string(value)
            case .startDate:
                if let date = date(value, "WorkoutActivity startDate", instead: "the workout's", reader: reader, line: line) {
                    activity.start = date
                }
            case .endDate: activity.end = date(value, "WorkoutActivity endDate", reader: reader, line: line)
            case .duration: duration = Self.number(value, "WorkoutActivity duration", line: line, report: report)
            case .durationUnit: durationUnit = reader.units.string(value)
            default: activity.metadata.append(reader.extraAttribute(attributes, index))
            }
        }
        activity.durationSeconds = seconds(duration, unit: durationUnit, of: "WorkoutActivity", line: line)
        return activity
    }

    /// `duration` in seconds; one in a unit that is not a time (`durationUnit="mins"`) is reported and nil.
    private func seconds(_ duration: Double?, unit: String?, of element: String, line: Int) -> Double? {
        guard let duration else { return nil }
        guard let seconds = WorkoutUnits.seconds(duration, unit: unit) else {
            report("\(element) duration in an unknown unit left out", line)
            return nil
        }
        return seconds
    }

    /// A date attribute of a workout's part; a text that is not a date is reported (with what is
    /// used `instead`, when something is) and nil.
    private func date(_ value: UnsafeBufferPointer<UInt8>, _ what: String, instead: String? = nil,
                      reader: ExportValueReader, line: Int) -> Timestamp? {
        if let date = reader.date(value) { return date }
        if !value.isEmpty { report("\(what) that is not a date " + (instead.map { "(\($0) used)" } ?? "left out"), line) }
        return nil
    }

    private func workoutRoute(_ attributes: SAXAttributes, reader: ExportValueReader, line: Int) -> WorkoutRoute {
        var route = WorkoutRoute()
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .sourceName: route.sourceName = reader.sources.string(value)
            case .startDate: route.start = date(value, "WorkoutRoute startDate", reader: reader, line: line)
            case .endDate: route.end = date(value, "WorkoutRoute endDate", reader: reader, line: line)
            // Without its per-record `0x…` address, as the workout's own: the address differs in every
            // export, which made each workout with a route a change at every import.
            case .device: route.metadata.append(MetadataEntry("device", .string(reader.device(value))))
            // A version, not a number: `10.10` and `9.0` as the export wrote them.
            case .sourceVersion: route.metadata.append(reader.extraAttribute(attributes, index, asText: true))
            default: route.metadata.append(reader.extraAttribute(attributes, index))
            }
        }
        return route
    }

    /// Reports an attribute a part has no field (and no metadata) for, so that nothing is left out
    /// silently: `WorkoutStatistics attribute 'x' left out (no field for it)`.
    private static func leftOut(_ attributes: SAXAttributes, _ index: Int, of element: String, reader: ExportValueReader,
                                line: Int, report: (_ reason: String, _ line: Int) -> Void) {
        report("\(element) attribute '\(reader.names.text(attributes.name(index)))' left out (no field for it)", line)
    }

    private func location(_ attributes: SAXAttributes, reader: ExportValueReader, line: Int) -> RoutePoint? {
        var date: Timestamp?
        var latitude: Double?
        var longitude: Double?
        var point = RoutePoint(time: Timestamp(epochMilliseconds: 0), latitude: 0, longitude: 0)
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .date: date = reader.date(value)
            case .latitude: latitude = DecimalNumber.parseLeading(value)
            case .longitude: longitude = DecimalNumber.parseLeading(value)
            case .altitude: point.altitude = DecimalNumber.parseLeading(value)
            case .horizontalAccuracy: point.horizontalAccuracy = DecimalNumber.parseLeading(value)
            case .verticalAccuracy: point.verticalAccuracy = DecimalNumber.parseLeading(value)
            case .course: point.course = DecimalNumber.parseLeading(value)
            case .speed: point.speed = DecimalNumber.parseLeading(value)
            default: Self.leftOut(attributes, index, of: "Location", reader: reader, line: line, report: report)
            }
        }
        guard let date, let latitude, let longitude else { return nil }
        point.time = date
        point.latitude = latitude
        point.longitude = longitude
        return point
    }
}
