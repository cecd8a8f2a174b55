import Foundation

/// What makes an alert send a message.
public enum AlertTrigger: Sendable, Codable, Equatable, Hashable {
    /// An opening under way or announced on the alert's bridges, inside its days and window.
    case opening
    /// The forecast chance of an opening on the alert's route at its departure (a local time of day, minutes after
    /// midnight) at or above a threshold (0…1), checked `leadMinutes` before the departure on each of its days.
    case forecast(departureMinute: Int, threshold: Double, leadMinutes: Int)
}

/// Where an alert's messages go.
public struct AlertDestination: Sendable, Codable, Equatable, Hashable {
    /// How a message is sent.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A JSON POST signed with HMAC-SHA256 over the timestamp and the body (`Bridget-Signature`).
        case webhook
        /// A POST of a short text to an ntfy-style topic URL.
        case ntfy
    }

    public var kind: Kind
    /// The URL messages are posted to.
    public var url: String
    /// The name of the environment variable that holds the webhook's signing secret (never the secret itself).
    public var secretEnvironment: String?

    /// Creates a destination.
    public init(kind: Kind, url: String, secretEnvironment: String? = nil) {
        self.kind = kind
        self.url = url
        self.secretEnvironment = secretEnvironment
    }
}

/// A subscription: which openings, when, what triggers it and where its messages go.
public struct AlertRuleDTO: Sendable, Codable, Equatable, Hashable {
    /// The alert's name, unique in a store.
    public var name: String
    /// The saved route it was made from, if any (its bridges are in `bridgeIDs`).
    public var route: String?
    /// The bridges it watches, by catalog id.
    public var bridgeIDs: [String]
    /// ISO weekdays it covers (1 Monday … 7 Sunday); empty for every day.
    public var weekdays: [Int]
    /// The local window it covers, minutes after midnight, start inclusive and end exclusive (an end before the
    /// start crosses midnight); `nil` for the whole day.
    public var window: ClosedMinuteWindow?
    /// The time zone the days and the window are read in (the source's).
    public var timeZone: String
    public var trigger: AlertTrigger
    public var destination: AlertDestination
    /// Why the alert was turned off, when its receiver said it is gone (HTTP 410, or 404 on three attempts in a
    /// row); `nil` while it is on. An alert that is off triggers nothing; saving it again turns it on.
    public var disabled: AlertDisabling?

    /// Creates a rule.
    public init(name: String, route: String? = nil, bridgeIDs: [String], weekdays: [Int] = [],
                window: ClosedMinuteWindow? = nil, timeZone: String, trigger: AlertTrigger = .opening,
                destination: AlertDestination, disabled: AlertDisabling? = nil) {
        self.disabled = disabled
        self.name = name
        self.route = route
        self.bridgeIDs = bridgeIDs
        self.weekdays = weekdays
        self.window = window
        self.timeZone = timeZone
        self.trigger = trigger
        self.destination = destination
    }

    /// Whether a moment falls on the rule's days and inside its window.
    public func covers(_ instant: Date) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? .gmt
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: instant)
        let weekday = ((parts.weekday ?? 1) + 5) % 7 + 1 // Calendar: 1 Sunday; ISO: 1 Monday
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        var day = weekday
        if let window {
            guard window.contains(minute) else { return false }
            // A window across midnight belongs to the day it starts on.
            if window.crossesMidnight, minute < window.end { day = day == 1 ? 7 : day - 1 }
        }
        return weekdays.isEmpty || weekdays.contains(day)
    }

    /// Whether a stored change sends this rule's message at `now`: an opening on its bridges, inside its days and
    /// window, that is under way at `now` (happened, not yet closed) or announced and still to come.
    public func isTriggered(by change: OpeningChangeDTO, at now: Date) -> Bool {
        guard disabled == nil, case .opening = trigger, bridgeIDs.contains(change.bridgeID) else { return false }
        switch change.kind {
        case .new, .announced, .replaced, .updated: break
        case .closed, .withdrawn: return false
        }
        let relevant = switch change.status {
        case .planned: change.openedAt > now
        case .observed, .live: change.openedAt <= now.addingTimeInterval(60) && (change.closedAt.map { $0 > now } ?? true)
        }
        return relevant && covers(change.openedAt)
    }
}

/// Why and when an alert was turned off.
public struct AlertDisabling: Sendable, Codable, Equatable, Hashable {
    /// What the receiver answered, for a person: "HTTP 410 Gone".
    public var reason: String
    public var at: Date

    /// Creates a record of an alert turned off.
    public init(reason: String, at: Date) {
        self.reason = reason
        self.at = at
    }
}

/// A window of minutes in a day: start inclusive, end exclusive; an end at or before the start crosses midnight.
public struct ClosedMinuteWindow: Sendable, Codable, Equatable, Hashable {
    public var start: Int
    public var end: Int

    /// Creates a window.
    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    public var crossesMidnight: Bool { end <= start }

    /// Whether a minute of the day is inside (for a window across midnight, in either part).
    public func contains(_ minute: Int) -> Bool {
        crossesMidnight ? (minute >= start || minute < end) : (minute >= start && minute < end)
    }
}

/// The message an alert owes, as its receiver gets it: `id` is stable across every attempt, so a receiver drops
/// repeats by it.
public struct AlertMessageDTO: Sendable, Codable, Equatable {
    public let id: String
    public let alert: String
    /// `opening.new`, `opening.announced`, `opening.replaced`, `opening.updated` or `forecast`.
    public let type: String
    public let bridgeID: String
    public let bridgeName: String
    public let openedAt: Date
    public let closedAt: Date?
    public let status: OpeningStatus
    /// The change log's number of the change behind it (none for a forecast).
    public let sequence: Int64?
    /// A forecast message's chance (0…1).
    public let chance: Double?
    public let createdAt: Date

    /// Creates a message.
    public init(id: String, alert: String, type: String, bridgeID: String, bridgeName: String, openedAt: Date,
                closedAt: Date?, status: OpeningStatus, sequence: Int64?, chance: Double?, createdAt: Date) {
        self.id = id
        self.alert = alert
        self.type = type
        self.bridgeID = bridgeID
        self.bridgeName = bridgeName
        self.openedAt = openedAt
        self.closedAt = closedAt
        self.status = status
        self.sequence = sequence
        self.chance = chance
        self.createdAt = createdAt
    }

    /// The message of a change that triggered `alert`.
    public init(alert: String, change: OpeningChangeDTO, bridgeName: String, createdAt: Date) {
        self.init(id: "\(alert):\(change.sequence)", alert: alert, type: "opening.\(change.kind.rawValue)",
                  bridgeID: change.bridgeID, bridgeName: bridgeName, openedAt: change.openedAt,
                  closedAt: change.closedAt, status: change.status, sequence: change.sequence, chance: nil,
                  createdAt: createdAt)
    }
}

/// Where a message stands.
public enum AlertDeliveryState: String, Sendable, Codable, CaseIterable {
    /// Not yet delivered; tried again at its next attempt.
    case pending
    /// Its receiver answered 2xx.
    case delivered
    /// Its receiver answered 410 Gone: never tried again.
    case gone
    /// Not delivered within the retry time.
    case expired
}

/// A message in the outbox.
public struct AlertOutboxEntryDTO: Sendable, Codable, Equatable {
    /// The outbox's number for it.
    public let id: Int64
    public let eventID: String
    public let alert: String
    public let createdAt: Date
    /// The body, as sent (JSON).
    public let body: String
    public let state: AlertDeliveryState
    public let attempts: Int
    public let nextAttemptAt: Date

    /// Creates an entry.
    public init(id: Int64, eventID: String, alert: String, createdAt: Date, body: String, state: AlertDeliveryState,
                attempts: Int, nextAttemptAt: Date) {
        self.id = id
        self.eventID = eventID
        self.alert = alert
        self.createdAt = createdAt
        self.body = body
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
    }
}

/// One attempt to deliver a message, as `alert log` shows it.
public struct AlertAttemptDTO: Sendable, Codable, Equatable {
    public let outboxID: Int64
    public let eventID: String
    public let alert: String
    public let attempt: Int
    public let at: Date
    /// Who tried (host and process).
    public let holder: String
    /// `delivered`, `retry`, `gone`, `expired` or `failed`.
    public let outcome: String
    public let httpStatus: Int?
    /// What went wrong, without any secret (no URL query, no header).
    public let detail: String?

    /// Creates an attempt.
    public init(outboxID: Int64, eventID: String, alert: String, attempt: Int, at: Date, holder: String,
                outcome: String, httpStatus: Int?, detail: String?) {
        self.outboxID = outboxID
        self.eventID = eventID
        self.alert = alert
        self.attempt = attempt
        self.at = at
        self.holder = holder
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.detail = detail
    }
}
