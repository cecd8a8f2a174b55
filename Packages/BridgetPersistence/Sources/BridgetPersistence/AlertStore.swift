import BridgetDTOs
import Foundation

/// What an attempt to deliver a message came to.
public enum AlertAttemptOutcome: Sendable, Equatable {
    /// The receiver took it (2xx).
    case delivered(httpStatus: Int)
    /// Not delivered; try again at `next` (the receiver down, 5xx, 429 with its Retry-After, a deadline).
    case retry(httpStatus: Int?, detail: String, next: Date)
    /// The receiver said the destination is gone (410, or 404 on three attempts in a row): the message is never tried
    /// again and its alert is turned off (`AlertRuleDTO.disabled`).
    case gone(httpStatus: Int)
    /// Not delivered within the retry time: given up.
    case expired(detail: String)

    /// The name `alert log` shows.
    public var name: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "retry"
        case .gone: "gone"
        case .expired: "expired"
        }
    }
}

/// Where alerts and the messages they owe are kept: subscriptions, an outbox filled in the transactions of the
/// changes that trigger it, and every attempt to deliver.
///
/// An implementation must guarantee:
/// - a write of events whose logged changes trigger an alert (`AlertRuleDTO.isTriggered`) puts one message per
///   alert and change in the outbox in the same transaction, with the event id `alert:sequence`; an event id is
///   never enqueued twice;
/// - `claimDueMessages` hands each due message to one holder at a time: a message claimed by one holder is not
///   handed to another until its lease ends (a holder that died), so with several processes each message is sent
///   by one of them, and again only after its holder vanished;
/// - `recordAttempt` appends the attempt and sets the message's state, its next attempt and its attempt count,
///   and ends the lease (an id the outbox lacks records nothing); a `gone` outcome also turns the message's alert
///   off, in the same transaction;
/// - `saveAlert(_:maximum:)` never lets the number of alerts pass `maximum`, whatever saves run at once;
/// - `pruneAlertMessages` removes only finished messages (delivered, gone, expired) and their attempts;
/// - every instant written is checked (`StoredInstant`): one no store keeps is refused with an error.
public protocol AlertStore: Sendable {
    /// Adds or replaces an alert, by name, unless adding it would make more than `maximum` alerts: checked and
    /// written in one transaction, so saves at once never pass the cap.
    func saveAlert(_ rule: AlertRuleDTO, maximum: Int) async throws -> AlertSaveResult
    /// Every alert, by name.
    func alerts() async throws -> [AlertRuleDTO]
    /// Removes an alert (its messages stay in the outbox and the log); whether there was one.
    func removeAlert(named name: String) async throws -> Bool
    /// Puts a message not triggered by a change (a forecast, a test) in the outbox; `false` when its id is there.
    func enqueueAlertMessage(_ message: AlertMessageDTO, at now: Date) async throws -> Bool
    /// Up to `limit` messages due at `now` that no live lease holds, leased to `holder` until `leaseUntil`.
    func claimDueMessages(holder: String, now: Date, leaseUntil: Date, limit: Int) async throws
        -> [AlertOutboxEntryDTO]
    /// The pending message with `eventID`, leased to `holder` until `leaseUntil`, unless another holder's lease is
    /// live (it is being sent): what `bridget alert test` sends itself, so a running server does not send it too.
    func claimMessage(eventID: String, holder: String, now: Date, leaseUntil: Date) async throws -> AlertOutboxEntryDTO?
    /// Records an attempt on a message and its outcome.
    func recordAttempt(outboxID: Int64, holder: String, at: Date, outcome: AlertAttemptOutcome) async throws
    /// Messages newest first, of one alert or all.
    func outboxMessages(alert: String?, limit: Int) async throws -> [AlertOutboxEntryDTO]
    /// Attempts newest first, of one alert or all.
    func alertAttempts(alert: String?, limit: Int) async throws -> [AlertAttemptDTO]
    /// Removes the finished messages (delivered, gone, expired) whose outcome was recorded before `cutoff`, with
    /// their attempts; how many messages went.
    func pruneAlertMessages(finishedBefore cutoff: Date) async throws -> Int
}

/// What saving an alert came to.
public enum AlertSaveResult: Sendable, Equatable {
    case created
    case replaced
    /// Not saved: the store keeps `count` alerts, the most it may.
    case refused(count: Int)
}

extension AlertStore {
    /// Adds or replaces an alert with no cap (tests and tools; the app passes `alerts.max_alerts`).
    public func saveAlert(_ rule: AlertRuleDTO) async throws { _ = try await saveAlert(rule, maximum: .max) }
}

extension AlertRuleDTO {
    /// The reason an alert is turned off when its receiver is gone.
    public static func goneReason(httpStatus: Int) -> String {
        httpStatus == 410 ? "the receiver answered HTTP 410 Gone" : "the receiver answered HTTP \(httpStatus) three times in a row"
    }
}

extension AlertMessageDTO {
    /// The body as stored and sent: sorted keys, ISO 8601 instants.
    public func jsonBody() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

extension AlertRuleDTO {
    /// The rule as stored.
    public func storedJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A stored rule.
    public static func stored(_ text: String) throws -> AlertRuleDTO {
        do {
            return try JSONDecoder().decode(AlertRuleDTO.self, from: Data(text.utf8))
        } catch {
            throw StoreError.corruptEvent(detail: "an unreadable alert rule")
        }
    }
}
