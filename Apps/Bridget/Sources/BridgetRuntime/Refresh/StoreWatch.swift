import BridgetContext
import BridgetCore
import BridgetPersistence
import Foundation

/// `bridget watch`: the store kept fresh with no HTTP. The refresher syncs on the configured schedule, Seattle's live
/// state feed is polled beside it (by one host of those sharing the store), and the alerts' messages are sent when
/// the build delivers alerts; it runs until cancelled or until one of them ends.
package struct StoreWatch: Sendable {
    package let refresh: RefreshRunner
    private let poller: LiveStatePoller?
    private let sender: (any AlertSender)?

    /// The watch over the configured store, opened for writing.
    package static func opening(_ context: AppContext, alerts: (any AlertDeliveryPart)?,
                                log: @escaping @Sendable (LogLine) -> Void) async throws -> StoreWatch {
        try await StoreWatch(context: context, store: try await context.assembly.makeStore(), alerts: alerts, log: log)
    }

    /// The watch over `store` (reopened when another file replaces its file); `alerts` is the build's delivery, if
    /// any (without it, messages wait in the outbox and `log` says so once).
    package init(context: AppContext, store: any BridgeStore, alerts: (any AlertDeliveryPart)?,
                 log: @escaping @Sendable (LogLine) -> Void) async throws {
        // A store holding another source's openings is refused before anything polls or syncs into it.
        try await context.assembly.checkSource(of: store)
        let served = context.reopening(store)
        refresh = try RefreshRunner(context: context, store: served, log: log)
        poller = try await LiveStatePoller.make(context: context, store: served, log: log)
        if let alerts {
            sender = alerts.sender(context: context, store: served) { log(.init(level: .info, message: $0)) }
        } else {
            sender = nil
            log(.init(level: .notice, message: "alerts: this bridget was built without the Alerts trait, so alert "
                      + "messages wait in the outbox for a serve or watch built with it"))
        }
    }

    /// Runs the refresher, the poller and the sender until cancelled (or until one ends), then cancels the rest.
    package func run() async throws {
        let (refresh, poller, sender) = (refresh, poller, sender)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await refresh.run() }
            if let sender { group.addTask { await sender.run() } }
            if let poller { group.addTask { await poller.run() } }
            try await group.next()
            group.cancelAll()
        }
    }
}
