import Foundation

/// One line a long-running part (the refresher, the live poller) logs, and how much it matters.
package struct LogLine: Sendable, Equatable {
    package enum Level: String, Sendable { case info, notice, warning, error }

    package let level: Level
    package let message: String

    package init(level: Level, message: String) {
        self.level = level
        self.message = message
    }
}
