import ArgumentParser
import BridgetAnswers
import BridgetDTOs
import BridgetRuntime
import Foundation

extension AlertCommand {
    /// `alert test`.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "test", 
            abstract: "Send a test message to an alert's destination now, and say what came back.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The alert's name.") var name: String

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let alerts = try await AlertRules.opening(context)
                switch try await alerts.sendTest(named: name, delivery: BuildParts.current.alerts) {
                case .delivered(let id, let destination, let status):
                    Terminal.note("delivered \(id) to \(destination) (HTTP \(status))")
                case .takenByServer(let id):
                    Terminal.note("a running server took \(id) first and sends it: `bridget alert log \(name)` shows the "
                                  + "attempt")
                case .queued(let id):
                    Terminal.note("put \(id) in the outbox: a `bridget serve` or `bridget watch` built with the Alerts "
                                  + "trait sends it (this build does not send)")
                }
            }
        }
    }

    /// `alert log`.
    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "log", abstract: "Show every attempt to deliver, newest first.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Argument(help: "Only this alert's attempts.") var name: String?
        @Option(name: .long, help: "At most this many attempts (default 50).") var limit = 50

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let alerts = try await AlertRules.reading(context)
                if let name { _ = try await alerts.existing(named: name) }
                let attempts = try await alerts.attempts(of: name, limit: max(limit, 1))
                let time = context.clock
                let rows = attempts.map { attempt in
                    [Cell(attempt.at, time: time), Cell(attempt.eventID), Cell(attempt.attempt), Cell(attempt.outcome),
                     Cell(attempt.httpStatus.map(String.init) ?? ""), Cell(attempt.detail ?? ""), Cell(attempt.holder)]
                }
                try OutputWriter(format: output.format).write(
                    attempts,
                    tabular: Tabular(columns: ["at", "event_id", "attempt", "outcome", "http", "detail", "by"], rows: rows),
                    notes: attempts.isEmpty ? ["", "No attempt yet."] : [])
            }
        }
    }
}
