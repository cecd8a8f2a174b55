import BridgetApp
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Sends the outbox's messages: each due message claimed under a lease (so with several processes one sends it, and
/// another only after its holder died), posted with a deadline, and its attempt recorded; a failure is tried again
/// after an exponential backoff with jitter (or the receiver's `Retry-After` on 429 and 503), for
/// `alerts.retry_hours`; `410 Gone` ends it. Every attempt of a message carries the same event id, so a receiver
/// drops repeats.
package final class AlertDeliverer: Sendable {
    package struct Settings: Sendable {
        package var retryWindow: TimeInterval
        package var timeout: TimeInterval
        package var backoffInitial: TimeInterval
        package var backoffMaximum: TimeInterval
        package var allowPrivate: Bool
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
            self.pollInterval = pollInterval
            self.batch = batch
        }
    }

    private let store: any AlertStore
    private let settings: Settings
    private let holder: String
    private let environment: [String: String]
    private let clock: LocalClock
    private let transport: any AlertTransport
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    /// Run before each pass: what puts messages in the outbox that no change does (the forecast alerts).
    private let beforePass: @Sendable (Date) async throws -> Void

    package init(store: any AlertStore, settings: Settings, holder: String, environment: [String: String],
                 clock: LocalClock, transport: any AlertTransport = URLSessionAlertTransport(),
                 now: @escaping @Sendable () -> Date = { Date() },
                 beforePass: @escaping @Sendable (Date) async throws -> Void = { _ in },
                 log: @escaping @Sendable (String) -> Void) {
        self.beforePass = beforePass
        self.store = store
        self.settings = settings
        self.holder = holder
        self.environment = environment
        self.clock = clock
        self.transport = transport
        self.now = now
        self.log = log
    }

    /// Delivers until cancelled: every due message, then a look again after `pollInterval`. A store that cannot be
    /// reached is tried again; nothing is lost, as the outbox keeps every message until its outcome is recorded.
    package func run() async {
        var lastLook = Date.distantPast
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
                let sent = try await deliverDue()
                if sent == settings.batch { continue }
            } catch is CancellationError {
                return
            } catch {
                log("alerts: the outbox cannot be read: \(error); trying again")
            }
            try? await Task.sleep(for: settings.pollInterval)
        }
    }

    /// One pass: claims the due messages and attempts each; how many were claimed.
    @discardableResult
    package func deliverDue() async throws -> Int {
        let started = now()
        // Long enough for one attempt and its record; a holder killed mid-way leaves its messages to others after it.
        let lease = started.addingTimeInterval(settings.timeout * 2 + 5)
        let due = try await store.claimDueMessages(holder: holder, now: started, leaseUntil: lease, limit: settings.batch)
        guard !due.isEmpty else { return 0 }
        let rules = Dictionary(try await store.alerts().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        await withTaskGroup(of: Void.self) { group in
            for entry in due {
                group.addTask { [self] in
                    let outcome = await attempt(entry, rule: rules[entry.alert])
                    let at = now()
                    do {
                        try await store.recordAttempt(outboxID: entry.id, holder: holder, at: at, outcome: outcome)
                    } catch {
                        // The lease runs out and the message is claimed again: sent twice at worst, with its event id.
                        log("alerts: the attempt on \(entry.eventID) could not be recorded: \(error)")
                    }
                    log("alerts: \(entry.eventID) " + Self.describe(outcome))
                }
            }
        }
        return due.count
    }

    /// One attempt on a message: its outcome, never thrown.
    package func attempt(_ entry: AlertOutboxEntryDTO, rule: AlertRuleDTO?) async -> AlertAttemptOutcome {
        let started = now()
        guard started.timeIntervalSince(entry.createdAt) < settings.retryWindow else {
            return .expired(detail: "not delivered within \(Self.hours(settings.retryWindow)) (alerts.retry_hours)")
        }
        guard let rule else { return .expired(detail: "the alert \(entry.alert) was removed") }
        let destination = rule.destination
        let url: URL
        do {
            url = try DestinationPolicy(allowPrivate: settings.allowPrivate).check(destination.url)
        } catch {
            return retry(entry, status: nil, detail: "\(error)", after: nil)
        }
        let body: Data
        var headers = ["User-Agent": "bridget/\(BridgetVersion.current)", "Bridget-Event-Id": entry.eventID]
        switch destination.kind {
        case .webhook:
            body = Data(entry.body.utf8)
            headers["Content-Type"] = "application/json"
            let timestamp = Int(started.timeIntervalSince1970)
            headers["Bridget-Timestamp"] = String(timestamp)
            if let variable = destination.secretEnvironment {
                guard let secret = environment[variable], !secret.isEmpty else {
                    return retry(entry, status: nil, detail: "the variable \(variable) that holds the webhook's secret is not set",
                                 after: nil)
                }
                headers["Bridget-Signature"] = WebhookSignature.header(secret: secret, timestamp: timestamp, body: body)
            }
        case .ntfy:
            let message = try? JSONDecoder.iso8601.decode(AlertMessageDTO.self, from: Data(entry.body.utf8))
            body = Data((message.map { Self.text($0, clock: clock) } ?? "A bridge alert (\(entry.eventID))").utf8)
            headers["Content-Type"] = "text/plain; charset=utf-8"
            headers["Title"] = "Bridget: \(entry.alert)"
            headers["Tags"] = "bridge_at_night"
        }
        do {
            let (status, answer) = try await transport.post(url, headers: headers, body: body, timeout: settings.timeout)
            switch status {
            case 200..<300: return .delivered(httpStatus: status)
            case 410: return .gone(httpStatus: status)
            case 429, 503:
                return retry(entry, status: status, detail: "HTTP \(status)",
                             after: answer["retry-after"].flatMap { Self.retryAfter($0, now: started) })
            default: return retry(entry, status: status, detail: "HTTP \(status)", after: nil)
            }
        } catch {
            return retry(entry, status: nil, detail: Self.describe(error), after: nil)
        }
    }

    /// A retry after the receiver's wait, or the backoff: `initial × 2^(attempts)`, at most the maximum, scaled by
    /// a random factor in 0.5…1 (so receivers coming back are not met by every sender at once).
    private func retry(_ entry: AlertOutboxEntryDTO, status: Int?, detail: String, after wait: TimeInterval?)
        -> AlertAttemptOutcome
    {
        let backoff = min(settings.backoffMaximum, settings.backoffInitial * pow(2, Double(min(entry.attempts, 30))))
        let delay = wait.map { max($0, 0) } ?? backoff * Double.random(in: 0.5...1)
        return .retry(httpStatus: status, detail: detail, next: now().addingTimeInterval(delay))
    }

    /// `Retry-After` in seconds or as an HTTP date, as seconds from `now`.
    static func retryAfter(_ text: String, now: Date) -> TimeInterval? {
        if let seconds = Double(text.trimmingCharacters(in: .whitespaces)) { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { $0.timeIntervalSince(now) }
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

    /// A transport failure for a log line: its kind, never the URL (which can hold the destination's key).
    static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            return switch error.code {
            case .timedOut: "no answer within the deadline"
            case .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet: "the receiver cannot be reached"
            case .cannotFindHost, .dnsLookupFailed: "the receiver's host does not resolve"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
                "the receiver's TLS certificate was refused"
            default: "a network failure (\(error.code.rawValue))"
            }
        }
        return "a network failure"
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
