import BridgetDTOs
import Foundation

/// Synthetic road traffic near each bridge, hourly: rush-hour congestion on weekdays, a flatter weekend, and more
/// congestion in hours when the bridge opened (so analysis has a real correlation to find). Deterministic by seed.
public struct SampleTrafficModel: Sendable {
    public let seed: UInt64
    private let time = LocalClock.seattle

    /// Creates a model.
    public init(seed: UInt64) { self.seed = seed }

    /// Base congestion (0…1) by hour on weekdays and at weekends.
    static let weekday: [Double] = [
        0.08, 0.05, 0.05, 0.05, 0.08, 0.2, 0.45, 0.8, 0.85, 0.6, 0.45, 0.45,
        0.5, 0.45, 0.45, 0.55, 0.8, 0.85, 0.6, 0.4, 0.3, 0.2, 0.15, 0.1,
    ]
    static let weekend: [Double] = [
        0.1, 0.08, 0.05, 0.05, 0.05, 0.08, 0.12, 0.2, 0.3, 0.38, 0.42, 0.45,
        0.48, 0.48, 0.45, 0.42, 0.4, 0.38, 0.32, 0.28, 0.22, 0.18, 0.14, 0.12,
    ]

    /// One observation per bridge and hour of a Seattle local day; `rows` are that day's opening rows.
    public func flows(forDay day: Int, bridges: [BridgeInfoDTO], rows: [SocrataRow]) -> [TrafficFlowDTO] {
        let midnight = FloatingTimestamp(wallClockSeconds: Int64(day) * 86_400)
        let weekend = midnight.weekday == 1 || midnight.weekday == 7
        var openingsByHour: [String: [Int]] = [:]
        for row in rows {
            guard let id = row.entityid, let reading = row.opendatetime.flatMap(FloatingTimestamp.init),
                  reading.dayNumber == day else { continue }
            openingsByHour[id, default: [Int](repeating: 0, count: 24)][reading.hour] += 1
        }
        var flows: [TrafficFlowDTO] = []
        for bridge in bridges {
            var random = SeededGenerator(mixing: seed, SeededGenerator.digest("traffic" + bridge.id), UInt64(bitPattern: Int64(day)))
            let openings = openingsByHour[bridge.id] ?? [Int](repeating: 0, count: 24)
            for hour in 0..<24 {
                let reading = FloatingTimestamp(wallClockSeconds: midnight.wallClockSeconds + Int64(hour * 3600))
                guard let instant = time.instants(for: reading).first else { continue } // the spring-forward gap
                let base = (weekend ? Self.weekend : Self.weekday)[hour]
                let congestion = min(1, max(0, base + 0.12 * Double(min(openings[hour], 2)) + (random.nextUnit() - 0.5) * 0.1))
                flows.append(TrafficFlowDTO(bridgeID: bridge.id, timestamp: instant, congestionLevel: congestion,
                                            trafficVolume: Int(3_000 * (0.25 + congestion))))
            }
        }
        return flows
    }
}
