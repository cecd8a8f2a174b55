import BridgetContext
import BridgetDTOs
import BridgetPersistence
import BridgetRuntime
import Foundation

/// Alert delivery as the composition root registers it in a build with the `Alerts` trait: `AlertDeliverer` over
/// the configured alerts' settings, this process's identity and the forecast alerts.
package struct AlertDelivery: AlertDeliveryPart {
    package init() {}

    package func sender(context: AppContext, store: any BridgeStore, log: @escaping @Sendable (String) -> Void)
        -> any AlertSender
    {
        AlertDeliverer(
            store: store, settings: AlertDeliverer.Settings(context.configuration.alerts),
            holder: BridgetAssembly.processIdentity, environment: context.environment, clock: context.clock,
            beforePass: { now in try await ForecastAlerts(context: context, store: store).enqueueDue(now: now) },
            log: log)
    }

    package func lease(context: AppContext) -> TimeInterval {
        AlertDeliverer.lease(AlertDeliverer.Settings(context.configuration.alerts))
    }

    /// One attempt by a deliverer that logs nothing (`alert test` says the outcome itself).
    package func attempt(_ entry: AlertOutboxEntryDTO, rule: AlertRuleDTO, context: AppContext, store: any BridgeStore)
        async -> AlertAttemptOutcome
    {
        let deliverer = AlertDeliverer(
            store: store, settings: AlertDeliverer.Settings(context.configuration.alerts),
            holder: BridgetAssembly.processIdentity, environment: context.environment, clock: context.clock,
            log: { _ in })
        return await deliverer.deliver(entry, rule: rule)
    }
}

extension AlertDeliverer: AlertSender {}
