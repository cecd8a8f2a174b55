import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

/// A history held in memory: the port's simplest honest implementation.
typealias ListHistory = InMemoryHistory

@Suite("Serial processor")
struct SerialProcessorTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a sync batch comes back as events plus counted rejections, nothing lost")
    func processesBatches() async throws {
        let processor = SerialProcessor(history: ListHistory([]), now: { [now] in now })
        let good = OpeningObservation(
            bridgeID: "3", bridgeName: "Fremont", opened: .value(.local(FloatingTimestamp("2026-06-01T08:10:00.000")!)),
            closed: .value(.local(FloatingTimestamp("2026-06-01T08:14:00.000")!)), durationMinutes: .value(4))
        var bad = good
        bad.bridgeID = "42"
        let batch = [good, bad, good]
        let processed = try await processor.validate(batch, catalog: .seattle, clock: .seattle)
        #expect(processed.events.count == 1)
        #expect(processed.rejectionCounts[.unknownBridgeID] == 1)
        #expect(processed.rejectionCounts[.duplicateInBatch] == 1)
        // The later of two rows of one opening wins, as a later batch's would: the earlier is the duplicate.
        #expect(processed.rejected.map(\.index) == [0, 1])
        #expect(processed.events.count + processed.rejected.count == batch.count)
    }

    @Test func statisticsCleanupAndMessages() async throws {
        let history = ListHistory([
            Hand.event("2026-06-01T08:10:00.000", minutes: 2),
            Hand.event("2026-06-02T08:10:00.000", minutes: 4),
        ])
        let processor = SerialProcessor(history: history, now: { [now] in now })
        let stats = try await processor.generateStatistics()
        #expect(stats.totalOpenings == 2 && stats.generatedAt == now)
        #expect(try await processor.analyzeTrafficPatterns(bridgeID: "3").openingsByHour[8] == 2)
        await #expect(throws: AnalysisError.unknownBridge(id: "5")) { try await processor.analyzeTrafficPatterns(bridgeID: "5") }
        let cutoff = Hand.event("2026-06-02T00:00:00.000", minutes: nil).openedAt
        #expect(try await processor.cleanupOldData(olderThan: cutoff) == 1)
        #expect(try await processor.generateStatistics().totalOpenings == 1)
    }
}
