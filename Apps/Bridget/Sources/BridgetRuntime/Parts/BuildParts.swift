import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// What this build has beyond the core, by trait: the HTTP server (`Server`) and alert delivery (`Alerts`). The
/// composition root (the `bridget` executable) registers the parts its traits built before any command runs; a
/// command asks here and, for a part the build lacks, says how to get it. (The third trait, `Postgres`, is a kind of
/// store: `BridgetAssembly` makes it.)
package struct BuildParts: Sendable {
    /// `bridget serve`: the JSON API and pages over HTTP (trait `Server`).
    package var server: (any ServerPart)?
    /// Sends the alerts' messages from the outbox (trait `Alerts`).
    package var alerts: (any AlertDeliveryPart)?

    package init(server: (any ServerPart)? = nil, alerts: (any AlertDeliveryPart)? = nil) {
        self.server = server
        self.alerts = alerts
    }

    private static let registered = Locked(BuildParts())

    /// The parts the composition root registered (none until it does: a test of the commands alone has none).
    package static var current: BuildParts { registered.withLock { $0 } }

    /// Registers the build's parts; the composition root calls it once, first.
    package static func register(_ parts: BuildParts) { registered.withLock { $0 = parts } }

    /// The server, or the error that says how to build one.
    package func requireServer() throws -> any ServerPart {
        guard let server else {
            throw BridgetError(.serveMissing, "this bridget was built without the server",
                               hint: "build it with the Server trait: swift build --traits Server,Alerts --product bridget")
        }
        return server
    }
}

/// The HTTP server of a build with the `Server` trait (BridgetWeb).
package protocol ServerPart: Sendable {
    /// Serves the configured store until a stop signal: the API, the pages, the refresher when `refresh` is on, the
    /// live poller, and `alerts`' sender when the build delivers alerts. `host` and `port` override the configuration's.
    func serve(context: AppContext, host: String?, port: Int?, alerts: (any AlertDeliveryPart)?) async throws
}

/// Alert delivery of a build with the `Alerts` trait (BridgetAlerts: webhooks signed with swift-crypto, ntfy).
package protocol AlertDeliveryPart: Sendable {
    /// A sender of the outbox's due messages (and the forecast alerts' messages as they fall due) over `store`.
    func sender(context: AppContext, store: any BridgeStore, log: @escaping @Sendable (String) -> Void)
        -> any AlertSender

    /// How long a claim on a message lasts while one attempt runs (a claim made for `attempt` is for this long).
    func lease(context: AppContext) -> TimeInterval

    /// One attempt on a claimed message, recorded in the store: its outcome.
    func attempt(_ entry: AlertOutboxEntryDTO, rule: AlertRuleDTO, context: AppContext, store: any BridgeStore) async
        -> AlertAttemptOutcome
}

/// A running sender of the outbox's messages.
package protocol AlertSender: Sendable {
    /// Sends until cancelled.
    func run() async
    /// Looks for due messages now (new changes enqueued some).
    func nudge()
}
