import BridgetContext
import BridgetCore
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
    /// Why the alert is off (its receiver said the destination is gone) and since when; absent while it is on.
    package let disabled: String?
    package let disabledAt: Date?

    package init(_ rule: AlertRuleDTO) {
        disabled = rule.disabled?.reason
        disabledAt = rule.disabled?.at
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
                throw BridgetError(.inputUnknownRoute, "no saved route is named '\(ConfigValueType.escaped(routeName, limit: 64))'",
                                              hint: "see `bridget route list`, or name bridges instead")
            }
            for crossing in route.crossings { bridgeIDs += crossing.bridgeIDs }
        }
        let catalog = try await context.catalog(in: store)
        for text in request.bridges ?? [] { bridgeIDs.append(try context.bridge(named: text, in: catalog).id) }
        var seen = Set<String>()
        bridgeIDs = bridgeIDs.filter { seen.insert($0).inserted }
        guard !bridgeIDs.isEmpty else {
            throw BridgetError(.inputAlertNoBridges, "an alert needs a saved route or bridges to watch",
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
                throw BridgetError(.inputAlertForecastRoute, "a forecast alert follows a saved route",
                                              hint: "give --route, whose chance at the departure is checked")
            }
            guard let departure = request.departure, let (hour, minute) = TimeGrammar.timeOfDay(departure) else {
                throw BridgetError(.inputAlertDeparture, "a forecast alert needs a departure time of day such as 17:40",
                                              hint: "give --departure HH:MM")
            }
            let threshold = request.threshold ?? 0.3
            guard (0...1).contains(threshold) else {
                throw BridgetError(.inputAlertThreshold, "the threshold \(threshold) is not a chance from 0 to 1",
                                              hint: "give --threshold 0.3 for 30%")
            }
            let lead = try TimeGrammar.minutes(request.lead ?? "30m", option: "lead")
            trigger = .forecast(departureMinute: hour * 60 + minute, threshold: threshold, leadMinutes: lead)
        case let other:
            throw BridgetError(.inputAlertTrigger, "'\(other)' is not a trigger", hint: "use opening or forecast")
        }
        let destination: AlertDestination
        switch (request.webhook, request.ntfy) {
        case (let url?, nil):
            if let variable = request.secretEnv { try checkSecret(variable) }
            destination = AlertDestination(kind: .webhook, url: url, secretEnvironment: request.secretEnv)
        case (nil, let url?):
            guard request.secretEnv == nil else {
                throw BridgetError(.inputAlertSecretEnv, "an ntfy topic is not signed: a secret goes with a webhook",
                                              hint: "leave out the secret, or use a webhook")
            }
            destination = AlertDestination(kind: .ntfy, url: url)
        default:
            throw BridgetError(.inputAlertDestination, "an alert needs one destination: a webhook or an ntfy topic",
                                          hint: "give --webhook URL (with --secret-env VAR) or --ntfy URL")
        }
        do {
            _ = try await DestinationPolicy(allowPrivate: context.configuration.alerts.allowPrivate).check(destination.url)
        } catch let refusal as DestinationPolicy.Refusal where refusal.isResolution {
            // A name that does not resolve here and now may where and when messages are sent: each attempt checks
            // the addresses again.
            context.note("\(refusal.description); the destination is checked again before each message")
        } catch let refusal as DestinationPolicy.Refusal {
            throw BridgetError(.inputAlertDestination, refusal.description,
                                          hint: "use an https URL on the internet (alerts.allow_private opens loopback and private addresses)")
        }
        return AlertRuleDTO(name: name, route: request.route, bridgeIDs: bridgeIDs, weekdays: weekdays, window: window,
                            timeZone: context.clock.zone.identifier, trigger: trigger, destination: destination)
    }

    /// A webhook's secret variable: a name alerts may use, and, where it is set here, a secret long enough. One not
    /// set here may be where messages are sent: each attempt reads it again.
    private func checkSecret(_ variable: String) throws {
        guard WebhookSecrets.isSecretName(variable) else {
            throw BridgetError(.inputAlertSecretEnv, "'\(ConfigValueType.escaped(variable, limit: 64))' is not a secret's variable: a webhook's secret is read "
                    + "only from variables named \(WebhookSecrets.prefix)<NAME>",
                hint: "put the secret in \(WebhookSecrets.prefix)COMMUTE (environment or alerts.secrets_file) and name that")
        }
        let alerts = context.configuration.alerts
        do {
            _ = try WebhookSecrets(environment: context.environment, file: alerts.secretsFile).keys(named: variable)
        } catch let problem as WebhookSecrets.Problem where problem.isMissing {
            context.note("\(problem.description) here; each message reads it again where it is sent")
        } catch let problem as WebhookSecrets.Problem {
            throw BridgetError(.inputAlertSecret, problem.description,
                                          hint: "a secret of 24 bytes or more: `openssl rand -base64 32`, prefixed whsec_")
        }
    }

    /// An alert's name: what a URL path and a shell take without quoting.
    package static func checkName(_ name: String) throws {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy(allowed.contains), !name.hasPrefix(".") else {
            throw BridgetError(.inputAlertName, "'\(ConfigValueType.escaped(name, limit: 64))' is not an alert name",
                                          hint: "use 1 to 64 letters, digits, '-', '_' or '.' (not first)")
        }
    }

    /// `07:00-09:30` as minutes of the day: two times of day in the time grammar, which must differ as times (so
    /// `07:00-7:00` is refused as `07:00-07:00` is; the whole day is no window at all).
    static func window(_ text: String) throws -> ClosedMinuteWindow {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            .map { String($0).trimmingCharacters(in: .whitespaces) }
        guard text.utf8.count <= 40, parts.count == 2, let start = TimeGrammar.timeOfDay(parts[0]),
              let end = TimeGrammar.timeOfDay(parts[1])
        else {
            throw BridgetError(.inputAlertWindow, "'\(ConfigValueType.escaped(text, limit: 40))' is not a window of the day",
                                          hint: "write two local times such as 07:00-09:30 (22:00-02:00 crosses midnight)")
        }
        let window = ClosedMinuteWindow(start: start.0 * 60 + start.1, end: end.0 * 60 + end.1)
        guard window.start != window.end else {
            throw BridgetError(.inputAlertWindow, "'\(ConfigValueType.escaped(text, limit: 40))' starts and ends at the same time",
                                          hint: "leave out --between for the whole day, or give two different times")
        }
        return window
    }

    static func clockText(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
}
