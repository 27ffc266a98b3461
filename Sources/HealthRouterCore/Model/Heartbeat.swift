/// One instantaneous heart-rate reading from an HRV record's beat list, resolved to an instant.
public struct Heartbeat: Sendable, Hashable {
    public var time: Timestamp
    public var beatsPerMinute: Double

    public init(time: Timestamp, beatsPerMinute: Double) {
        self.time = time
        self.beatsPerMinute = beatsPerMinute
    }
}
