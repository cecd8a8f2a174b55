import ArgumentParser
import BridgetAnswers
import BridgetDTOs
import BridgetRuntime
import Foundation

/// `bridget alert`: subscriptions that send a message when a bridge on a route opens or is announced.
struct AlertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alert",
        abstract: "Be told when a bridge on your route opens or is announced: webhooks and ntfy topics.",
        discussion: """
            An alert watches a saved route's bridges (or bridges you name) on some days, in a window of the day, \
            and sends a message when an opening under way or announced falls there (or, with --trigger forecast, \
            when the chance of an opening at your departure is high). Messages go to a webhook (a JSON POST \
            signed as Standard Webhooks says: webhook-id, webhook-timestamp, webhook-signature v1,BASE64 over \
            "ID.TIMESTAMP.BODY", verified by its libraries) or an ntfy topic URL. A webhook's secret is read from \
            a variable named BRIDGET_ALERT_SECRET_<NAME> (the environment, or alerts.secrets_file): whsec_ and \
            base64, 24 bytes or more; two secrets separated by a space sign with both while you rotate.
            A message is written to the store's outbox in the same transaction as the change that triggers it, and \
            sent by `bridget serve` or `bridget watch` (a build with the Alerts trait): retried with backoff for \
            alerts.retry_hours, honouring 429 and 503 Retry-After within that time. A receiver answering 410 Gone \
            (or 404 three times in a row) turns the alert off (`alert show` says so; `alert add` again turns it \
            on). Each message carries a stable id a receiver drops repeats by. `alert log` shows every attempt.
              bridget alert add commute --route commute \\
                --days mon-fri --between 07:00-09:30 \\
                --webhook https://example.org/hooks/bridget \\
                --secret-env BRIDGET_ALERT_SECRET_COMMUTE
              bridget alert add fremont --bridge Fremont \\
                --ntfy https://ntfy.sh/my-fremont-topic
              bridget alert test commute
              bridget alert log commute
            """,
        subcommands: [Add.self, List.self, Show.self, Remove.self, Test.self, Log.self])

    /// `alert add`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Save an alert (replacing one of the same name).")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "The alert's name (letters, digits, '-', '_', '.').") var name: String
        @Option(name: .long, help: "A saved route: its bridges are watched.") var route: String?
        @Option(name: .long, help: "A bridge to watch, by id or name; repeat for more.") var bridge: [String] = []
        @Option(name: .long, help: "Days: mon-fri, sat,sun, weekdays, weekends or daily (default).") var days: String?
        @Option(name: .long, help: ArgumentHelp("A local window such as 07:00-09:30 (default: all day).", valueName: "from-to"))
        var between: String?
        @Option(name: .long, help: "opening (default: one under way or announced) or forecast.") var trigger: String?
        @Option(name: .long, help: "For --trigger forecast: your departure, a local time of day such as 17:40.")
        var departure: String?
        @Option(name: .long, help: "For --trigger forecast: send when the chance is at least this (0 to 1, default 0.3).")
        var threshold: Double?
        @Option(name: .long, help: "For --trigger forecast: how long before the departure to look (default 30m).")
        var lead: String?
        @Option(name: .long, help: "Post signed JSON to this https URL.") var webhook: String?
        @Option(name: .customLong("secret-env"),
                help: "The variable that holds the webhook's signing secret: BRIDGET_ALERT_SECRET_<NAME>.")
        var secretEnv: String?
        @Option(name: .long, help: "Post a short text to this ntfy topic URL (e.g. https://ntfy.sh/TOPIC).") var ntfy: String?

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let request = AlertRequest(
                    route: route, bridges: bridge.isEmpty ? nil : bridge, days: days, between: between, trigger: trigger,
                    departure: departure, threshold: threshold, lead: lead, webhook: webhook, secretEnv: secretEnv,
                    ntfy: ntfy)
                let rule = try await AlertRules.opening(context).save(named: name, request)
                let notes = ["", "Saved alert \(rule.name): messages wait in the store's outbox until `bridget serve` or "
                             + "`bridget watch` sends them."]
                try AlertCommand.write([AlertOutput(rule)], format: output.format, notes: notes)
            }
        }
    }

    /// `alert list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the alerts.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let alerts = try await AlertRules.reading(context).rules().map(AlertOutput.init)
                try AlertCommand.write(alerts, format: output.format,
                                       notes: alerts.isEmpty ? ["", "No alerts: add one with `bridget alert add`."] : [])
            }
        }
    }

    /// `alert show`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show an alert and its latest messages.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "The alert's name.") var name: String

        struct Output: Encodable {
            let alert: AlertOutput
            let messages: [AlertOutboxEntryDTO]
        }

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let alerts = try await AlertRules.reading(context)
                let rule = try await alerts.existing(named: name)
                let messages = try await alerts.messages(of: name, limit: 20)
                let time = context.clock
                let rows = messages.map { message in
                    [Cell(message.eventID), Cell(message.createdAt, time: time), Cell(message.state.rawValue),
                     Cell(message.attempts), Cell(message.state == .pending ? message.nextAttemptAt : nil, time: time)]
                }
                let alert = AlertOutput(rule)
                try OutputWriter(format: output.format).write(
                    Output(alert: alert, messages: messages),
                    tabular: Tabular(columns: ["event_id", "created", "state", "attempts", "next_attempt"], rows: rows),
                    notes: ["", AlertCommand.summary(alert)])
            }
        }
    }

    /// `alert remove`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", 
            abstract: "Remove an alert (its messages already in the outbox are given up when next tried).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The alert's name.") var name: String

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                try await AlertRules.opening(context).remove(named: name)
                Terminal.note("removed alert \(name)")
            }
        }
    }

    static func summary(_ alert: AlertOutput) -> String {
        var text = "\(alert.name): \(alert.trigger == "forecast" ? "forecast at \(alert.departure ?? "?") over \(Int((alert.threshold ?? 0) * 100))%" : "openings") "
            + "at bridges \(alert.bridgeIDs.joined(separator: ", "))" + (alert.route.map { " (route \($0))" } ?? "")
            + ", \(alert.days)" + (alert.between.map { " \($0)" } ?? "") + " (\(alert.timeZone))"
        text += ", to \(alert.destinationKind) \(alert.destination)" + (alert.secretEnv.map { " signed with $\($0)" } ?? "")
        if let reason = alert.disabled { text += ". OFF: \(reason); `bridget alert add` it again to turn it on" }
        return text
    }

    static func write(_ alerts: [AlertOutput], format: OutputFormat, notes: [String]) throws {
        let rows = alerts.map { alert in
            [Cell(alert.name), Cell(alert.route ?? ""), Cell(alert.bridgeIDs.joined(separator: ",")), Cell(alert.days),
             Cell(alert.between ?? "all day"), Cell(alert.trigger), Cell(alert.destinationKind), Cell(alert.destination)]
        }
        try OutputWriter(format: format).write(
            alerts,
            tabular: Tabular(columns: ["name", "route", "bridges", "days", "window", "trigger", "kind", "destination"],
                             rows: rows),
            notes: notes)
    }
}
