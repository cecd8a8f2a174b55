import BridgetContext
import BridgetDTOs
@testable import BridgetPages
import BridgetPersistence
import Foundation
import Testing

/// The overview's next 12 hours know the calendar: on Thanksgiving the Ship Canal's 16:00–18:00 is not a curfew.
@Suite("the overview on a federal holiday")
struct HolidayOverviewTests {
    /// Fremont's strip on the overview at `now`: the chance of each quarter hour by its `HH:MM` label.
    static func fremontStrip(at now: Date, context: AppContext, store: any BridgeStore) async throws -> [String: Double] {
        let html = try await Site(context: context, store: store, now: now).overview()
        let after = try #require(html.components(separatedBy: "id=\"strip-3\"").dropFirst().first)
        let strip = after.components(separatedBy: "<li class=\"bridge-row\"").first ?? after // this bridge's row only
        var chances: [String: Double] = [:]
        for tip in strip.components(separatedBy: "<title>").dropFirst() {
            // "16:15: 12% chance of an opening"
            let text = tip.prefix { $0 != "<" }
            guard text.hasSuffix("chance of an opening"), let colon = text.range(of: ": ") else { continue }
            let percent = text[colon.upperBound...].prefix { $0 != "%" }
            // "under 1%" is under a hundredth.
            chances[String(text[..<colon.lowerBound])] = percent.hasPrefix("under ") ? 0.005 : Double(percent).map { $0 / 100 }
        }
        return chances
    }

    @Test("Thanksgiving's 16:00–18:00 at Fremont is forecast as a Sunday's, the day before's as a curfew")
    func thanksgiving() async throws {
        let folder = NSTemporaryDirectory() + "bridget-pages-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/bridget.yaml"
        try """
            provider: {kind: sample, sample: {seed: 42, days: 365, end_date: 2025-11-20}}
            store: {path: \(folder)/store.sqlite}
            routes: {path: \(folder)/routes.yaml}
            rules: {path: \(folder)/rules.yaml}
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let noon: @Sendable (String) -> Date = { date in
            LocalClock.seattle.openingInstant(for: FloatingTimestamp(date + "T12:00:00.000")!)
        }
        let wednesdayNoon = noon("2025-11-26")
        let context = try AppContext.load(configPath: config, environment: [:], now: { wednesdayNoon }, notes: { _ in })
        let store = try await context.assembly.makeStore()
        _ = try await context.assembly.makeSyncPipeline(store: store).run(full: false)

        let wednesday = try await Self.fremontStrip(at: noon("2025-11-26"), context: context, store: store)
        let thanksgiving = try await Self.fremontStrip(at: noon("2025-11-27"), context: context, store: store)
        let sunday = try await Self.fremontStrip(at: noon("2025-11-30"), context: context, store: store)
        let rush = ["16:00", "16:15", "16:30", "16:45", "17:00", "17:15", "17:30", "17:45"]
        for slot in rush {
            let (w, t, s) = (try #require(wednesday[slot]), try #require(thanksgiving[slot]), try #require(sunday[slot]))
            #expect(t == s, "\(slot): Thanksgiving \(t), Sunday \(s)")
            #expect(t > 2 * w && t >= 0.08, "\(slot): Thanksgiving \(t), Wednesday \(w)")
        }
    }
}
