import Foundation
import TestSupport
@testable import HealthRouterCore

/// A heart-rate sample with a fingerprint id, as an export would give.
func heartRate(_ bpm: Double, at second: Int64, source: String = "Watch") -> Sample {
    var s = Sample(id: "", type: "HKQuantityTypeIdentifierHeartRate", kind: .quantity,
                   start: Timestamp(epochSeconds: 1_700_000_000 + second, utcOffsetSeconds: 3600),
                   end: Timestamp(epochSeconds: 1_700_000_000 + second, utcOffsetSeconds: 3600),
                   value: bpm, unit: "count/min", sourceName: source)
    s.id = Fingerprint.id(of: s)
    return s
}
