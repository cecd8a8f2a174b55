import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import BridgetRuntime
import Foundation

/// Sends the outbox's messages: each due message claimed under a lease (so with several processes one sends it, and
/// another only after its holder died), posted with a deadline, and its attempt recorded; a failure is tried again
/// after an exponential backoff with jitter, or later when a receiver answering 429 or 503 asks so (`Retry-After`,
/// read as a bounded fact: never sooner than the backoff, never past the message's expiry), for
/// `alerts.retry_hours`. A receiver that says the destination is gone (410, or 404 three times in a row) turns the
/// alert off. Every attempt of a message carries the same event id (`webhook-id`), so a receiver drops repeats.
/// Finished messages and their attempts are removed after `alerts.keep_days`.
package final class AlertDeliverer: Sendable {
    package struct Settings: Sendable {
        package var retryWindow: TimeInterval
        package var timeout: TimeInterval
        package var backoffInitial: TimeInterval
        package var backoffMaximum: TimeInterval
        package var allowPrivate: Bool
        package var retention: TimeInterval
        package var secretsFile: String?
        /// How often to look for due messages when there were none.
        package var pollInterval: Duration
        /// Messages claimed at once.
        package var batch: Int

        package init(_ settings: BridgetConfiguration.AlertSettings, pollInterval: Duration = .seconds(1), batch: Int = 20) {
            retryWindow = settings.retryWindow
            timeout = settings.timeout
            backoffInitial = settings.backoffInitial
            backoffMaximum = settings.backoffMaximum
            allowPrivate = settings.allowPrivate
            retention = settings.retention
            secretsFile = settings.secretsFile
            self.pollInterval = pollInterval
            self.batch = batch
        }
    }

    /// 404s in a row (this attempt's and the alert's attempts before it) that turn an alert off.
    static let notFoundLimit = 3

    private let store: any AlertStore
    private let settings: Settings
    private let holder: String
    private let secrets: WebhookSecrets
    private let clock: LocalClock
    private let transport: any AlertTransport
    private let policy: DestinationPolicy
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    /// Ends the wait between looks early: `nudge()`.
    private let wakeup = Doorbell()
    /// Run before each pass: what puts messages in the outbox that no change does (the forecast alerts).
    private let beforePass: @Sendable (Date) async throws -> Void

    package init(store: any AlertStore, settings: Settings, holder: String, environment: [String: String],
                 clock: LocalClock, transport: any AlertTransport = HTTPClientAlertTransport(),
                 resolver: @escaping @Sendable (String) throws -> [String] = DestinationPolicy.resolve,
                 now: @escaping @Sendable () -> Date = { Date() },
                 beforePass: @escaping @Sendable (Date) async throws -> Void = { _ in },
                 log: @escaping @Sendable (String) -> Void) {
        self.beforePass = beforePass
        self.store = store
        self.settings = settings
        self.holder = holder
        secrets = WebhookSecrets(environment: environment, file: settings.secretsFile)
        self.clock = clock
        self.transport = transport
        policy = DestinationPolicy(allowPrivate: settings.allowPrivate, resolver: resolver)
        self.now = now
        self.log = log
    }

    /// Delivers until cancelled: every due message, then a look again after `pollInterval`. A store that cannot be
    /// reached is tried again; nothing is lost, as the outbox keeps every message until its outcome is recorded.
    package func run() async {
        var lastLook = Date.distantPast
        var lastPrune = Date.distantPast
        while !Task.isCancelled {
            do {
                // Forecasts change by the quarter hour: a look every 30 s is enough.
                if now().timeIntervalSince(lastLook) >= 30 {
                    lastLook = now()
                    do {
                        try await beforePass(lastLook)
                    } catch is CancellationError {
                        return
                    } catch {
                        log("alerts: the forecast alerts were not checked: \(error)")
                    }
                }
                if now().timeIntervalSince(lastPrune) >= 3_600 {
                    lastPrune = now()
                    let removed = try await store.pruneAlertMessages(finishedBefore: lastPrune.addingTimeInterval(-settings.retention))
                    if removed > 0 { log("alerts: removed \(removed) finished message(s) older than alerts.keep_days") }
                }
                let sent = try await deliverDue()
                if sent == settings.batch { continue }
            } catch is CancellationError {
                return
            } catch {
                log("alerts: the outbox cannot be read: \(error); trying again")
            }
            await wakeup.wait(upTo: settings.pollInterval)
        }
    }

    /// Looks at the outbox now rather than after the poll interval: a server calls it when it sees new changes in
    /// the log, whose messages were enqueued in the same transactions.
    package func nudge() { wakeup.ring() }

    /// The lease a claim takes: long enough for one attempt (the name's resolution, then the post under its
    /// deadline) and its record; a holder killed mid-way leaves its messages to others after it.
    package var lease: TimeInterval { Self.lease(settings) }

    /// The lease of a deliverer with `settings`.
    package static func lease(_ settings: Settings) -> TimeInterval {
        settings.timeout * 2 + DestinationPolicy.resolutionTimeout + 5
    }

    /// One pass: claims the due messages and attempts each; how many were claimed.
    @discardableResult
    package func deliverDue() async throws -> Int {
        let started = now()
        let due = try await store.claimDueMessages(holder: holder, now: started, leaseUntil: started.addingTimeInterval(lease),
                                                   limit: settings.batch)
        guard !due.isEmpty else { return 0 }
        let rules = Dictionary(try await store.alerts().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        await withTaskGroup(of: Void.self) { group in
            for entry in due {
                group.addTask { [self] in _ = await deliver(entry, rule: rules[entry.alert]) }
            }
        }
        return due.count
    }

    /// Attempts one claimed message and records the attempt; its outcome.
    package func deliver(_ entry: AlertOutboxEntryDTO, rule: AlertRuleDTO?) async -> AlertAttemptOutcome {
        let outcome = await attempt(entry, rule: rule)
        do {
            try await store.recordAttempt(outboxID: entry.id, holder: holder, at: now(), outcome: outcome)
        } catch {
            // The lease runs out and the message is claimed again: sent twice at worst, with its event id.
            log("alerts: the attempt on \(entry.eventID) could not be recorded: \(error)")
        }
        log("alerts: \(entry.eventID) " + Self.describe(outcome))
        if case .gone = outcome { log("alerts: alert \(entry.alert) is turned off: its receiver is gone") }
        return outcome
    }

    /// One attempt on a message: its outcome, never thrown.
    package func attempt(_ entry: AlertOutboxEntryDTO, rule: AlertRuleDTO?) async -> AlertAttemptOutcome {
        let started = now()
        guard started.timeIntervalSince(entry.createdAt) < settings.retryWindow else {
            return .expired(detail: "not delivered within \(Self.hours(settings.retryWindow)) (alerts.retry_hours)")
        }
        guard let rule else { return .expired(detail: "the alert \(entry.alert) was removed") }
        if let disabled = rule.disabled { return .expired(detail: "the alert is off: \(disabled.reason)") }
        let destination: DestinationPolicy.Checked
        do {
            destination = try await policy.check(rule.destination.url)
        } catch {
            return retry(entry, status: nil, detail: "\(error)")
        }
        let body: Data
        var headers = [("User-Agent", "bridget/\(BridgetVersion.current)"), ("Bridget-Event-Id", entry.eventID)]
        switch rule.destination.kind {
        case .webhook:
            body = Data(entry.body.utf8)
            let timestamp = Int(started.timeIntervalSince1970)
            headers += [("Content-Type", "application/json"), ("webhook-id", entry.eventID),
                        ("webhook-timestamp", String(timestamp))]
            if let variable = rule.destination.secretEnvironment {
                do {
                    let keys = try secrets.keys(named: variable)
                    headers.append(("webhook-signature",
                                    WebhookSignature.header(keys: keys, id: entry.eventID, timestamp: timestamp, body: body)))
                } catch {
                    return retry(entry, status: nil, detail: "\(error)")
                }
            }
        case .ntfy:
            let message = try? JSONDecoder.iso8601.decode(AlertMessageDTO.self, from: Data(entry.body.utf8))
            body = Data((message.map { Self.text($0, clock: clock) } ?? "A bridge alert (\(entry.eventID))").utf8)
            headers += [("Content-Type", "text/plain; charset=utf-8"), ("Title", "Bridget: \(entry.alert)"),
                        ("Tags", "bridge_at_night")]
        }
        let reply: AlertReply
        do {
            reply = try await transport.post(destination, headers: headers, body: body, timeout: settings.timeout)
        } catch {
            return retry(entry, status: nil, detail: HTTPClientAlertTransport.classify(error).description)
        }
        switch reply.status {
        case 200..<300: return .delivered(httpStatus: reply.status)
        case 410: return .gone(httpStatus: 410)
        case 404:
            // The alert's attempts before this one, newest first: the destination is gone when they were 404 too.
            let before = (try? await store.alertAttempts(alert: entry.alert, limit: Self.notFoundLimit - 1)) ?? []
            if before.count == Self.notFoundLimit - 1, before.allSatisfy({ $0.httpStatus == 404 }) {
                return .gone(httpStatus: 404)
            }
            return retry(entry, status: 404, detail: "HTTP 404")
        case 429, 503:
            return retry(entry, status: reply.status, detail: "HTTP \(reply.status)", retryAfter: reply.headers["retry-after"])
        default:
            return retry(entry, status: reply.status, detail: "HTTP \(reply.status)")
        }
    }

    /// A retry after the backoff, `initial × 2^(attempts)` at most the maximum, scaled by a random factor in 0.5…1 (so
    /// receivers coming back are not met by every sender at once); or after the receiver's `Retry-After` when that is
    /// later. Never past the message's expiry (`alerts.retry_hours` after it was made): a wait that would pass it
    /// makes the next attempt the last, `lastAttemptMargin` before the expiry (so a claim a few polls late still
    /// makes it).
    private func retry(_ entry: AlertOutboxEntryDTO, status: Int?, detail: String, retryAfter: String? = nil)
        -> AlertAttemptOutcome
    {
        let at = now()
        let backoff = min(settings.backoffMaximum, settings.backoffInitial * pow(2, Double(min(entry.attempts, 30))))
        var delay = backoff * Double.random(in: 0.5...1)
        var detail = detail
        if let retryAfter {
            if let wait = Self.retryAfter(retryAfter, now: at) {
                delay = max(delay, wait)
            } else {
                detail += " (Retry-After '\(ConfigValueType.escaped(retryAfter, limit: 40))' ignored: not seconds or an HTTP date)"
            }
        }
        let expiry = entry.createdAt.addingTimeInterval(settings.retryWindow)
        let last = expiry.addingTimeInterval(-lastAttemptMargin)
        let next = at < last ? min(at.addingTimeInterval(delay), last) : max(expiry, at)
        return .retry(httpStatus: status, detail: detail, next: next)
    }

    /// How long before a message's expiry its last attempt is made: ten seconds, or a tenth of a shorter window.
    var lastAttemptMargin: TimeInterval { min(10, settings.retryWindow / 10) }

    /// `Retry-After` as seconds from `now`, read as every outside answer's is (`RetryAfter`: delay-seconds or an
    /// HTTP date, bounded); `nil` for anything else (`nan`, `inf`, `1e300`, `-5`). A past date is 0. The bound is
    /// a year: the message's expiry caps the wait anyway.
    package static func retryAfter(_ text: String, now: Date) -> TimeInterval? {
        RetryAfter.seconds(text, now: now, limit: 366 * 86_400)
    }

    /// An ntfy message's text: "Fremont Bridge: opening announced for 17:52 PST (until 18:05 PST)".
    static func text(_ message: AlertMessageDTO, clock: LocalClock) -> String {
        let what = switch message.type {
        case "opening.announced": "opening announced for"
        case "opening.new": "opening under way since"
        case "opening.replaced", "opening.updated":
            message.status == .planned ? "announced opening moved to" : "opening under way since"
        case "forecast": "likely to open at"
        case "test": "test message for an opening at"
        default: "opening at"
        }
        var text = "\(message.bridgeName): \(what) \(clock.display(message.openedAt))"
        if let closed = message.closedAt { text += " (until \(clock.display(closed)))" }
        if let chance = message.chance { text += String(format: ", chance %.0f%%", chance * 100) }
        return text
    }

    static func describe(_ outcome: AlertAttemptOutcome) -> String {
        switch outcome {
        case .delivered(let status): "delivered (HTTP \(status))"
        case .gone(let status): "refused for good (HTTP \(status)): not tried again"
        case .expired(let detail): "given up: \(detail)"
        case .retry(_, let detail, let next): "not delivered (\(detail)); next attempt at \(ISO8601DateFormatter().string(from: next))"
        }
    }

    static func hours(_ seconds: TimeInterval) -> String { String(format: "%g h", seconds / 3600) }
}

extension JSONDecoder {
    fileprivate static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
