import BridgetAnalysis
import BridgetAnswers
import BridgetContext
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The forecast trigger of alerts: on each of an alert's days, `leadMinutes` before its departure, the chance that a
/// bridge on its route opens as the trip crosses it (at least one crossing, each at its best bridge and its arrival
/// time) is computed from the opening models, and a message is put in the outbox when it is at or above the
/// threshold. Its id names the alert and the day, so each day's departure is told once, however many processes look.
package struct ForecastAlerts: Sendable {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// Puts in the outbox the messages of the forecast alerts due at `now`; how many were new.
    @discardableResult
    package func enqueueDue(now: Date) async throws -> Int {
        let rules = try await store.alerts().filter { if case .forecast = $0.trigger { true } else { false } }
        guard !rules.isEmpty else { return 0 }
        let routes = try await context.savedRoutes(store).routes()
        let answers = RouteAnswers(context: context, store: store)
        var enqueued = 0
        for rule in rules {
            guard case .forecast(let departureMinute, let threshold, let lead) = rule.trigger,
                  let name = rule.route, let route = routes.first(where: { $0.id == name }),
                  let zone = TimeZone(identifier: rule.timeZone)
            else { continue }
            let clock = LocalClock(zone: zone)
            let today = clock.reading(for: now)
            let start = today.wallClockSeconds - Int64(today.hour * 3600 + today.minute * 60 + today.second)
            let departure = clock.openingInstant(for: FloatingTimestamp(wallClockSeconds: start + Int64(departureMinute) * 60))
            // Due from `lead` before the departure until the departure, on the alert's days and in its window.
            guard now >= departure.addingTimeInterval(-Double(lead) * 60), now < departure, rule.covers(departure) else {
                continue
            }
            let score = try await answers.scorer(for: route).score(route, departure: clock.reading(for: departure))
            let calm = score.crossings.reduce(1.0) { $0 * (1 - $1.best.chanceOfOpening) }
            let chance = 1 - calm
            guard chance >= threshold, let worst = score.crossings.max(by: { $0.best.chanceOfOpening < $1.best.chanceOfOpening })
            else { continue }
            let day = String(clock.reading(for: departure).localText.prefix(10))
            let message = AlertMessageDTO(
                id: "\(rule.name):forecast-\(day)", alert: rule.name, type: "forecast", bridgeID: worst.best.bridgeID,
                bridgeName: worst.best.bridgeName, openedAt: departure, closedAt: nil, status: .planned, sequence: nil,
                chance: chance, createdAt: now)
            if try await store.enqueueAlertMessage(message, at: now) { enqueued += 1 }
        }
        return enqueued
    }
}
