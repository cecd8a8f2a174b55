import BridgetDTOs
import Foundation

// The change log and alerts.
extension InMemoryBridgeStore {
    func log(_ kind: OpeningChangeKind, _ event: BridgeEventDTO, at now: Date = Date()) {
        newestChange += 1
        changeLog.append(.opening(OpeningChangeDTO(
            sequence: newestChange, recordedAt: now, kind: kind, bridgeID: event.bridgeID, openedAt: event.openedAt,
            closedAt: event.closedAt, status: event.status, recordID: event.recordID, recordVersion: event.recordVersion)))
    }

    public func changes(after sequence: Int64, bridgeIDs: [String]?, limit: Int) -> [ChangeLogEntryDTO] {
        Array(changeLog.lazy.filter { entry in
            entry.sequence > sequence && (bridgeIDs.map { wanted in entry.bridgeIDs.contains(where: wanted.contains) } ?? true)
        }.prefix(max(limit, 0)))
    }

    /// Every change logged wakes the readers, each as it is logged (the actor makes a read wait for the write).
    public nonisolated func changeWakeups() -> AsyncStream<Void> { bell.wakeups() }

    public func changeLogBounds() -> ChangeLogBounds {
        ChangeLogBounds(oldest: changeLog.first?.sequence, newest: newestChange)
    }

    public func pruneChanges(recordedBefore cutoff: Date) -> Int {
        let before = changeLog.count
        let newest = changeLog.last?.sequence
        changeLog.removeAll { $0.recordedAt < cutoff && $0.sequence != newest }
        return before - changeLog.count
    }

    public func withdrawAnnouncements(bridgeIDs: [String], keeping current: Set<String>) -> Int {
        let logged = newestChange
        let doomed = eventsByKey.values.filter { event in
            event.status == .planned && bridgeIDs.contains(event.bridgeID)
                && event.recordID.map { !current.contains($0) } ?? false
        }.sorted { $0.key < $1.key }
        for event in doomed {
            eventsByKey[event.key] = nil
            log(.withdrawn, event)
        }
        if !doomed.isEmpty {
            version += 1
            enqueueAlerts(changesAfter: logged)
        }
        return doomed.count
    }

    func enqueueAlerts(changesAfter sequence: Int64) {
        guard !alertRules.isEmpty else { return }
        let now = Date()
        for entry in changeLog where entry.sequence > sequence {
            guard let change = entry.opening else { continue } // a summary pages nobody
            for rule in alertRules.values.sorted(by: { $0.name < $1.name }) where rule.isTriggered(by: change, at: now) {
                let name = bridgesByID[change.bridgeID]?.displayName ?? change.bridgeID
                _ = insert(AlertMessageDTO(alert: rule.name, change: change, bridgeName: name, createdAt: now), at: now)
            }
        }
    }

    private func insert(_ message: AlertMessageDTO, at now: Date) -> Bool {
        guard !outbox.contains(where: { $0.entry.eventID == message.id }), let body = try? message.jsonBody() else {
            return false
        }
        lastOutboxID += 1
        let id = lastOutboxID
        outbox.append(OutboxMessage(entry: AlertOutboxEntryDTO(
            id: id, eventID: message.id, alert: message.alert, createdAt: now, body: body, state: .pending, attempts: 0,
            nextAttemptAt: now)))
        return true
    }

    public func saveAlert(_ rule: AlertRuleDTO, maximum: Int) -> AlertSaveResult {
        let exists = alertRules[rule.name] != nil
        guard exists || alertRules.count < maximum else { return .refused(count: alertRules.count) }
        alertRules[rule.name] = rule
        return exists ? .replaced : .created
    }

    public func pruneAlertMessages(finishedBefore cutoff: Date) -> Int {
        let gone = Set(outbox.filter { $0.entry.state != .pending && $0.entry.nextAttemptAt < cutoff }.map(\.entry.id))
        outbox.removeAll { gone.contains($0.entry.id) }
        attempts.removeAll { gone.contains($0.outboxID) }
        return gone.count
    }

    public func alerts() -> [AlertRuleDTO] { alertRules.values.sorted { $0.name < $1.name } }

    public func removeAlert(named name: String) -> Bool { alertRules.removeValue(forKey: name) != nil }

    public func enqueueAlertMessage(_ message: AlertMessageDTO, at now: Date) -> Bool { insert(message, at: now) }

    public func claimDueMessages(holder: String, now: Date, leaseUntil: Date, limit: Int) -> [AlertOutboxEntryDTO] {
        var claimed: [AlertOutboxEntryDTO] = []
        let due = outbox.indices.filter { index in
            outbox[index].entry.state == .pending && outbox[index].entry.nextAttemptAt <= now
                && (outbox[index].leaseUntil.map { $0 <= now } ?? true)
        }.sorted { (outbox[$0].entry.nextAttemptAt, $0) < (outbox[$1].entry.nextAttemptAt, $1) }
        for index in due.prefix(max(limit, 0)) {
            outbox[index].leaseUntil = leaseUntil
            claimed.append(outbox[index].entry)
        }
        return claimed.sorted { $0.id < $1.id }
    }

    public func claimMessage(eventID: String, holder: String, now: Date, leaseUntil: Date) -> AlertOutboxEntryDTO? {
        guard let index = outbox.firstIndex(where: { $0.entry.eventID == eventID }), outbox[index].entry.state == .pending,
              outbox[index].leaseUntil.map({ $0 <= now }) ?? true
        else { return nil }
        outbox[index].leaseUntil = leaseUntil
        return outbox[index].entry
    }

    public func recordAttempt(outboxID: Int64, holder: String, at: Date, outcome: AlertAttemptOutcome) throws {
        _ = try StoredInstant.seconds(at, "the attempt's time")
        if case .retry(_, _, let next) = outcome { _ = try StoredInstant.seconds(next, "the next attempt's time") }
        guard let index = outbox.firstIndex(where: { $0.entry.id == outboxID }) else { return }
        let entry = outbox[index].entry
        let (state, next, status, detail): (AlertDeliveryState, Date, Int?, String?) = switch outcome {
        case .delivered(let status): (.delivered, at, status, nil)
        case .retry(let status, let detail, let next): (.pending, next, status, detail)
        case .gone(let status): (.gone, at, status, nil)
        case .expired(let detail): (.expired, at, nil, detail)
        }
        outbox[index] = OutboxMessage(entry: AlertOutboxEntryDTO(
            id: entry.id, eventID: entry.eventID, alert: entry.alert, createdAt: entry.createdAt, body: entry.body,
            state: entry.state == .delivered ? .delivered : state, attempts: entry.attempts + 1, nextAttemptAt: next))
        let number = attempts.count { $0.outboxID == outboxID } + 1
        attempts.append(AlertAttemptDTO(outboxID: outboxID, eventID: entry.eventID, alert: entry.alert, attempt: number,
                                        at: at, holder: holder, outcome: outcome.name, httpStatus: status,
                                        detail: detail))
        if case .gone(let status) = outcome, alertRules[entry.alert]?.disabled == nil {
            alertRules[entry.alert]?.disabled = AlertDisabling(reason: AlertRuleDTO.goneReason(httpStatus: status), at: at)
        }
    }

    public func outboxMessages(alert: String?, limit: Int) -> [AlertOutboxEntryDTO] {
        Array(outbox.reversed().map(\.entry).filter { alert == nil || $0.alert == alert }.prefix(max(limit, 0)))
    }

    public func alertAttempts(alert: String?, limit: Int) -> [AlertAttemptDTO] {
        Array(attempts.reversed().filter { alert == nil || $0.alert == alert }.prefix(max(limit, 0)))
    }
}

/// A message in the in-memory outbox with its lease.
struct OutboxMessage {
    var entry: AlertOutboxEntryDTO
    var leaseUntil: Date?
}
