import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// What `alert test` did with its message.
package enum AlertTestResult: Sendable, Equatable {
    /// Sent: the message's id, where it went (its secret parts hidden) and the receiver's HTTP status.
    case delivered(id: String, destination: String, status: Int)
    /// A running server claimed the message first and sends it.
    case takenByServer(id: String)
    /// Put in the outbox only: this build does not send alerts (trait `Alerts`).
    case queued(id: String)
}

/// The alerts' operations the CLI and the API share: save, look up, remove, test.
extension AlertRules {
    /// Saves the rule `request` asks for under `name` (replacing one of that name) within `alerts.max_alerts`.
    package func save(named name: String, _ request: AlertRequest) async throws -> AlertRuleDTO {
        let rule = try await rule(named: name, request)
        let maximum = context.configuration.alerts.maximumAlerts
        if case .refused(let count) = try await store.saveAlert(rule, maximum: maximum) {
            throw BridgetError(.inputAlertLimit, "the store keeps \(count) alerts, the most it may (alerts.max_alerts "
                               + "\(maximum)); \(rule.name) was not saved",
                               hint: "remove one with `bridget alert remove`, or raise alerts.max_alerts")
        }
        return rule
    }

    /// The saved alert named `name`, or the error that there is none.
    package func existing(named name: String) async throws -> AlertRuleDTO {
        guard let rule = try await store.alerts().first(where: { $0.name == name }) else { throw Self.unknown(name) }
        return rule
    }

    /// Removes the alert named `name` (its messages already in the outbox are given up when next tried).
    package func remove(named name: String) async throws {
        guard try await store.removeAlert(named: name) else { throw Self.unknown(name) }
    }

    /// The error for a name no alert has.
    package static func unknown(_ name: String) -> BridgetError {
        BridgetError(.inputUnknownAlert, "no alert is named '\(ConfigValueType.escaped(name, limit: 64))'",
                     hint: "see `bridget alert list`")
    }

    /// Puts a test message for the alert named `name` in the outbox and, when the build sends alerts (`delivery`),
    /// claims it as a server would (whichever claims first sends it, once) and sends it now. A receiver that is gone
    /// or a message not delivered is an error that says what came back.
    package func sendTest(named name: String, delivery: (any AlertDeliveryPart)?) async throws -> AlertTestResult {
        let rule = try await existing(named: name)
        let now = context.assembly.now()
        let bridgeID = rule.bridgeIDs.first ?? ""
        let bridge = try await store.bridges().first { $0.id == bridgeID }
        // Its own id, whatever the clock says (two tests in one millisecond, or a clock a test holds still): an id
        // already in the outbox would not be enqueued again, and its claim would fail as if a server had taken it.
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let message = AlertMessageDTO(
            id: "\(rule.name):test-\(Int(now.timeIntervalSince1970 * 1000))-\(suffix)", alert: rule.name, type: "test",
            bridgeID: bridgeID, bridgeName: bridge?.displayName ?? bridgeID, openedAt: now.addingTimeInterval(600),
            closedAt: now.addingTimeInterval(900), status: .planned, sequence: nil, chance: nil, createdAt: now)
        guard try await store.enqueueAlertMessage(message, at: now) else {
            throw BridgetError(.alertUndelivered, "the test message \(message.id) is already in the outbox",
                               hint: "`bridget alert log \(rule.name)` shows its attempts")
        }
        guard let delivery else { return .queued(id: message.id) }
        let lease = delivery.lease(context: context)
        guard let entry = try await store.claimMessage(eventID: message.id, holder: BridgetAssembly.processIdentity,
                                                       now: now, leaseUntil: now.addingTimeInterval(lease))
        else { return .takenByServer(id: message.id) }
        switch await delivery.attempt(entry, rule: rule, context: context, store: store) {
        case .delivered(let status):
            return .delivered(id: message.id, destination: DestinationPolicy.redacted(rule.destination.url),
                              status: status)
        case .gone(let status):
            throw BridgetError(.alertGone, "the destination answered HTTP \(status): it is gone, and the alert is "
                               + "turned off", hint: "give the alert another destination with `bridget alert add`")
        case .retry(_, let detail, _), .expired(let detail):
            throw BridgetError(.alertUndelivered, "the test message was not delivered: \(detail)",
                               hint: "check the URL, the receiver and the secret's variable; `bridget alert log "
                                   + "\(rule.name)` shows the attempt (the outbox retries it)")
        }
    }
}

/// The rules and their messages as `bridget alert` lists them.
extension AlertRules: StoreAnswers {
    /// Every saved rule.
    package func rules() async throws -> [AlertRuleDTO] { try await store.alerts() }

    /// The rule `name`'s newest messages in the outbox, at most `limit`.
    package func messages(of name: String, limit: Int) async throws -> [AlertOutboxEntryDTO] {
        try await store.outboxMessages(alert: name, limit: limit)
    }

    /// The newest delivery attempts (of the rule `name`, or of every rule), at most `limit`.
    package func attempts(of name: String?, limit: Int) async throws -> [AlertAttemptDTO] {
        try await store.alertAttempts(alert: name, limit: limit)
    }
}
