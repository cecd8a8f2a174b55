import BridgetAnalysis
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// A bridge's forecast for one time: what `bridget predict --format json` prints and
/// `GET /v1/bridges/{id}/forecast` answers.
package struct ForecastAnswer: Encodable, Sendable {
    /// The same weekday and time in an earlier week, and the openings that started in its window.
    package struct Slot: Encodable, Sendable {
        package let from: String
        package let openings: [String]
    }

    package let forecast: ForecastDTO
    /// The instant asked about (ISO 8601 UTC) and its local form (`YYYY-MM-DDTHH:MM:SS`).
    package let atInstant: Date
    package let atLocal: String
    /// Mean minutes the bridge stays closed to traffic when it is open on arrival.
    package let waitIfOpenMinutes: Double
    package let modelBuiltAt: Date
    package let history: String
    package let lastSimilarSlots: [Slot]
}

/// Forecasts from a store's opening models: one question, one answer, for every front end. The models and the
/// evidence come from the book of the store's current history (a server's is shared, so a forecast asks the store
/// nothing but the history's version, at most once a second).
package struct Forecasts: Sendable {
    package let books: HistoryBooks

    package init(books: HistoryBooks) { self.books = books }

    package var context: AppContext { books.context }
    package var store: any BridgeStore { books.store }

    package init(context: AppContext, store: any BridgeStore) {
        self.init(books: HistoryBooks(context: context, store: store))
    }

    /// The book of the store's current history.
    package func book() async throws -> ForecastBook { try await books.book() }

    /// `bridge`'s current model, or `no-history` when none of its openings is stored.
    package func model(of bridge: BridgeInfoDTO) async throws -> OpeningModelDTO {
        try await Self.model(of: bridge, in: try await book())
    }

    /// `bridge`'s model in `book`, or `no-history` when none of its openings is stored.
    package static func model(of bridge: BridgeInfoDTO, in book: ForecastBook) async throws -> OpeningModelDTO {
        guard let model = try await book.model(bridge.id), model.openings > 0 else {
            throw BridgetError(.inputNoHistory, "no openings of \(bridge.name) are stored",
                                          hint: "run `bridget sync` first")
        }
        return model
    }

    /// The forecast for one time: the chance of an opening in the next `minutes` (the slots, the rules, and what
    /// happened at the other bridges before it: `Nowcaster`), the wait if open, and (with `evidence`) what happened in
    /// the last five similar slots.
    package func answer(model: OpeningModelDTO, bridge: BridgeInfoDTO, at resolved: TimeGrammar.Resolved, minutes: Int,
                        evidence: Bool) async throws -> ForecastAnswer {
        let book = try await book()
        let seen = try await book.evidence(at: resolved.instant, windowMinutes: minutes)
        var forecast = try await book.nowcaster().forecast(model, bridge: bridge, at: resolved.reading,
                                                           windowMinutes: minutes, evidence: seen)
        if !seen.isComplete && !model.dynamics.followers.isEmpty {
            forecast = forecast.adding(ForecastReasonDTO(
                kind: "evidence", text: "what opened in the four hours before is not known yet: the usual chance "
                    + "for this time, not what is under way"))
        }
        if let latest = model.sourceLatestOpening, resolved.instant < latest,
           let last = model.lastDay.flatMap(LocalDay.init) {
            // A past moment: its evidence is what came before it, its model the whole history's.
            forecast = forecast.adding(ForecastReasonDTO(
                kind: "model", text: "the model was learnt from the history to \(last.description), after this moment "
                    + "(`bridget backtest` scores forecasts learnt only from before)"))
        }
        // A holiday forecast as a Sunday is compared with Sundays.
        let calendar = try await book.ruleCalendar()
        let asSunday = model.dynamics.holidaysAsSundays
            && calendar.liftedCurfew(bridge.id, onDay: resolved.reading.dayNumber) != nil
        let similar = evidence
            ? try await lastSimilarSlots(bridgeID: bridge.id, at: resolved.reading, minutes: minutes, lastDay: model.lastDay,
                                         asSunday: asSunday)
            : []
        let waitIfOpen = seen.openFor[bridge.id].flatMap(model.dynamics.meanRemaining(afterMinutes:))
            ?? model.slots[OpeningModelDTO.slot(of: resolved.reading)].meanRemainingMinutes
        return ForecastAnswer(
            forecast: forecast, atInstant: resolved.instant, atLocal: resolved.reading.localText,
            waitIfOpenMinutes: waitIfOpen, modelBuiltAt: model.builtAt,
            history: "\(model.firstDay ?? "?") to \(model.lastDay ?? "?")", lastSimilarSlots: similar)
    }

    /// The same weekday and time in the five latest weeks of the history before `at`: from the book's recent
    /// openings, or the store for a time further back.
    private func lastSimilarSlots(bridgeID: String, at reading: FloatingTimestamp, minutes: Int,
                                  lastDay: String?, asSunday: Bool) async throws -> [ForecastAnswer.Slot] {
        guard let last = lastDay.flatMap(LocalDay.init) else { return [] }
        let clock = books.context.clock
        let recent = try await book().recentOpenings(bridgeID)
        // The same weekday a week before, or the Sunday before for a holiday forecast as a Sunday.
        var day = asSunday ? reading.dayNumber - 1 - reading.mondayFirstWeekday : reading.dayNumber - 7
        while day > last.number { day -= 7 }
        var slots: [ForecastAnswer.Slot] = []
        for _ in 0..<5 {
            let wall = Int64(day) * 86_400 + Int64(reading.hour * 3600 + reading.minute * 60)
            let start = FloatingTimestamp(wallClockSeconds: wall)
            let from = clock.openingInstant(for: start)
            let until = from.addingTimeInterval(Double(minutes) * 60)
            let events: [BridgeEventDTO]
            if let kept = recent?.events(from: from, before: until) {
                events = kept
            } else {
                events = try await books.store.events(
                    matching: EventQuery(bridgeID: bridgeID, openedFrom: from, openedBefore: until))
            }
            slots.append(ForecastAnswer.Slot(
                from: start.localText,
                openings: events.map { event in
                    String(event.openLocal.dropFirst(11).prefix(5)) + (event.durationMinutes.map { " (\(Int($0)) min)" } ?? "")
                }))
            day -= 7
        }
        return slots
    }
}

extension ForecastDTO {
    /// The same forecast with one more reason, last.
    package func adding(_ reason: ForecastReasonDTO) -> ForecastDTO {
        ForecastDTO(bridgeID: bridgeID, bridgeName: bridgeName, at: at, windowMinutes: windowMinutes,
                    chanceOfOpening: chanceOfOpening, chanceOpenOnArrival: chanceOpenOnArrival,
                    expectedDelayMinutes: expectedDelayMinutes, baseChanceOfOpening: baseChanceOfOpening,
                    sampleStarts: sampleStarts, sampleOccurrences: sampleOccurrences,
                    slotChanceOfOpening: slotChanceOfOpening, reasons: reasons + [reason])
    }

    /// `at` as a reading.
    package var atReading: FloatingTimestamp { FloatingTimestamp(at + ".000") ?? FloatingTimestamp(wallClockSeconds: 0) }
}

// MARK: Its JSON, written by hand (`JSONTextWritable`)

extension ForecastAnswer: JSONTextWritable {
    package func write(to json: inout JSONText) {
        json.object { json in
            json.member("atInstant", atInstant)
            json.member("atLocal", atLocal)
            json.member("forecast", forecast)
            json.member("history", history)
            json.member("lastSimilarSlots") { json in json.array(lastSimilarSlots) { json, slot in slot.write(to: &json) } }
            json.member("modelBuiltAt", modelBuiltAt)
            json.member("waitIfOpenMinutes", waitIfOpenMinutes)
        }
    }
}

extension ForecastAnswer.Slot: JSONTextWritable {
    package func write(to json: inout JSONText) {
        json.object { json in
            json.member("from", from)
            json.member("openings") { json in json.array(openings) { json, opening in json.string(opening) } }
        }
    }
}

extension ForecastDTO: JSONTextWritable {
    package func write(to json: inout JSONText) {
        json.object { json in
            json.member("at", at)
            json.member("baseChanceOfOpening", baseChanceOfOpening)
            json.member("bridgeID", bridgeID)
            json.member("bridgeName", bridgeName)
            json.member("chanceOfOpening", chanceOfOpening)
            json.member("chanceOpenOnArrival", chanceOpenOnArrival)
            json.member("expectedDelayMinutes", expectedDelayMinutes)
            json.member("reasons") { json in json.array(reasons) { json, reason in reason.write(to: &json) } }
            json.member("sampleOccurrences", sampleOccurrences)
            json.member("sampleStarts", sampleStarts)
            json.member("slotChanceOfOpening", slotChanceOfOpening)
            json.member("windowMinutes", windowMinutes)
        }
    }
}

extension ForecastReasonDTO: JSONTextWritable {
    package func write(to json: inout JSONText) {
        json.object { json in
            json.member("bridgeID", bridgeID)
            json.member("chance", chance)
            json.member("kind", kind)
            json.member("text", text)
        }
    }
}
