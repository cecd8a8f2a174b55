import BridgetDTOs
import BridgetPersistence
import Foundation

/// An alert as a person asks for it, in the CLI's words and the API's JSON (`PUT /v1/alerts/{name}`): a saved route
/// or bridges, days and a window in the CLI's time grammar, a trigger and a destination.
package struct AlertRequest: Codable, Sendable, Equatable {
    /// A saved route; its bridges are the alert's.
    package var route: String?
    /// Bridges by id or name (with or beside a route).
    package var bridges: [String]?
    /// Days as `mon-fri`, `sat,sun`, `weekdays`, `daily` (the default).
    package var days: String?
    /// A local window `07:00-09:30` (an end before the start crosses midnight); the whole day when absent.
    package var between: String?
    /// `opening` (the default: one under way or announced) or `forecast`.
    package var trigger: String?
    /// For `forecast`: the departure's local time of day, the chance at or above which to send (0…1), and how long
    /// before the departure to look (`30m`, the default).
    package var departure: String?
    package var threshold: Double?
    package var lead: String?
    /// The destination: a webhook URL (with the variable holding its signing secret) or an ntfy topic URL.
    package var webhook: String?
    package var secretEnv: String?
    package var ntfy: String?

    package init(route: String? = nil, bridges: [String]? = nil, days: String? = nil, between: String? = nil,
                 trigger: String? = nil, departure: String? = nil, threshold: Double? = nil, lead: String? = nil,
                 webhook: String? = nil, secretEnv: String? = nil, ntfy: String? = nil) {
        self.route = route
        self.bridges = bridges
        self.days = days
        self.between = between
        self.trigger = trigger
        self.departure = departure
        self.threshold = threshold
        self.lead = lead
        self.webhook = webhook
        self.secretEnv = secretEnv
        self.ntfy = ntfy
    }
}

/// An alert as `alert list|show` and `GET`-like answers show it: no secret, the destination's URL cut to its host.
package struct AlertOutput: Encodable, Sendable {
    package let name: String
    package let route: String?
    package let bridgeIDs: [String]
    package let days: String
    package let between: String?
    package let timeZone: String
    package let trigger: String
    package let departure: String?
    package let threshold: Double?
    package let leadMinutes: Int?
    package let destination: String
    package let destinationKind: String
    package let secretEnv: String?

    package init(_ rule: AlertRuleDTO) {
        name = rule.name
        route = rule.route
        bridgeIDs = rule.bridgeIDs
        days = rule.weekdays.isEmpty ? "daily" : rule.weekdays.sorted().map { Weekdays.names[$0 - 1] }.joined(separator: ",")
        between = rule.window.map { AlertRules.clockText($0.start) + "-" + AlertRules.clockText($0.end) }
        timeZone = rule.timeZone
        switch rule.trigger {
        case .opening:
            trigger = "opening"
            (departure, threshold, leadMinutes) = (nil, nil, nil)
        case .forecast(let minute, let chance, let lead):
            trigger = "forecast"
            (departure, threshold, leadMinutes) = (AlertRules.clockText(minute), chance, lead)
        }
        destination = DestinationPolicy.redacted(rule.destination.url)
        destinationKind = rule.destination.kind.rawValue
        secretEnv = rule.destination.secretEnvironment
    }
}

/// Turns requests into rules: names and words checked, a route's bridges resolved, the destination checked against
/// the policy. What the CLI and the API share.
package struct AlertRules: Sendable {
    package let context: AppContext
    package let store: any BridgeStore

    package init(context: AppContext, store: any BridgeStore) {
        self.context = context
        self.store = store
    }

    /// The rule `request` asks for under `name`, or a validation error saying what is wrong.
    package func rule(named name: String, _ request: AlertRequest) async throws -> AlertRuleDTO {
        try Self.checkName(name)
        var bridgeIDs: [String] = []
        if let routeName = request.route {
            let routes = try await context.savedRoutes(store)
            guard let route = try await routes.routes().first(where: { $0.id == routeName }) else {
                throw BridgetError.validation("unknown-route", "no saved route is named '\(routeName)'",
                                              hint: "see `bridget route list`, or name bridges instead")
            }
            for crossing in route.crossings { bridgeIDs += crossing.bridgeIDs }
        }
        let catalog = try await context.catalog(in: store)
        for text in request.bridges ?? [] { bridgeIDs.append(try context.bridge(named: text, in: catalog).id) }
        var seen = Set<String>()
        bridgeIDs = bridgeIDs.filter { seen.insert($0).inserted }
        guard !bridgeIDs.isEmpty else {
            throw BridgetError.validation("alert-no-bridges", "an alert needs a saved route or bridges to watch",
                                          hint: "give a route (--route) or bridges (--bridge)")
        }
        let weekdays = try request.days.map { try Weekdays.parse($0, option: "days") }.map { days in
            days.count == 7 ? [] : days.sorted().map { $0 + 1 }
        } ?? []
        let window = try request.between.map { try Self.window($0) }
        let trigger: AlertTrigger
        switch request.trigger?.lowercased() ?? "opening" {
        case "opening":
            trigger = .opening
        case "forecast":
            guard request.route != nil else {
                throw BridgetError.validation("alert-forecast-route", "a forecast alert follows a saved route",
                                              hint: "give --route, whose chance at the departure is checked")
            }
            guard let departure = request.departure, let (hour, minute) = TimeGrammar.timeOfDay(departure) else {
                throw BridgetError.validation("alert-departure", "a forecast alert needs a departure time of day such as 17:40",
                                              hint: "give --departure HH:MM")
            }
            let threshold = request.threshold ?? 0.3
            guard (0...1).contains(threshold) else {
                throw BridgetError.validation("alert-threshold", "the threshold \(threshold) is not a chance from 0 to 1",
                                              hint: "give --threshold 0.3 for 30%")
            }
            let lead = try TimeGrammar.minutes(request.lead ?? "30m", option: "lead")
            trigger = .forecast(departureMinute: hour * 60 + minute, threshold: threshold, leadMinutes: lead)
        case let other:
            throw BridgetError.validation("alert-trigger", "'\(other)' is not a trigger", hint: "use opening or forecast")
        }
        let destination: AlertDestination
        switch (request.webhook, request.ntfy) {
        case (let url?, nil):
            if let variable = request.secretEnv, !Self.isVariableName(variable) {
                throw BridgetError.validation("alert-secret-env", "'\(variable)' is not an environment variable's name",
                                              hint: "name the variable that holds the secret, such as BRIDGET_HOOK_SECRET")
            }
            destination = AlertDestination(kind: .webhook, url: url, secretEnvironment: request.secretEnv)
        case (nil, let url?):
            guard request.secretEnv == nil else {
                throw BridgetError.validation("alert-secret-env", "an ntfy topic is not signed: a secret goes with a webhook",
                                              hint: "leave out the secret, or use a webhook")
            }
            destination = AlertDestination(kind: .ntfy, url: url)
        default:
            throw BridgetError.validation("alert-destination", "an alert needs one destination: a webhook or an ntfy topic",
                                          hint: "give --webhook URL (with --secret-env VAR) or --ntfy URL")
        }
        do {
            _ = try DestinationPolicy(allowPrivate: context.configuration.alerts.allowPrivate).check(destination.url)
        } catch let refusal as DestinationPolicy.Refusal where refusal.isResolution {
            // A name that does not resolve here and now may where and when messages are sent: each attempt checks
            // the addresses again.
            context.note("\(refusal.description); the destination is checked again before each message")
        } catch let refusal as DestinationPolicy.Refusal {
            throw BridgetError.validation("alert-destination", refusal.description,
                                          hint: "use an https URL on the internet (alerts.allow_private opens private addresses)")
        }
        return AlertRuleDTO(name: name, route: request.route, bridgeIDs: bridgeIDs, weekdays: weekdays, window: window,
                            timeZone: context.clock.zone.identifier, trigger: trigger, destination: destination)
    }

    /// An alert's name: what a URL path and a shell take without quoting.
    package static func checkName(_ name: String) throws {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy(allowed.contains), !name.hasPrefix(".") else {
            throw BridgetError.validation("alert-name", "'\(name)' is not an alert name",
                                          hint: "use 1 to 64 letters, digits, '-', '_' or '.' (not first)")
        }
    }

    static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, CharacterSet.letters.contains(first) || first == "_" else { return false }
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
        return text.count <= 128 && text.unicodeScalars.allSatisfy(allowed.contains)
    }

    /// `07:00-09:30` as minutes of the day.
    static func window(_ text: String) throws -> ClosedMinuteWindow {
        let parts = text.split(separator: "-").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let start = TimeGrammar.timeOfDay(parts[0]), let end = TimeGrammar.timeOfDay(parts[1]),
              parts[0] != parts[1]
        else {
            throw BridgetError.validation("alert-window", "'\(text)' is not a window of the day",
                                          hint: "write two local times such as 07:00-09:30 (22:00-02:00 crosses midnight)")
        }
        return ClosedMinuteWindow(start: start.0 * 60 + start.1, end: end.0 * 60 + end.1)
    }

    static func clockText(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
}
