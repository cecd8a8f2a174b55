import BridgetContext
import BridgetCore
import BridgetPersistence
import BridgetRuntime
import Logging
import ServiceLifecycle

/// The refresher as a service of `serve`'s `ServiceGroup`: a graceful shutdown cancels it (a wait ends; a running
/// sync commits its batch in flight and records itself `cancelled`). Its lines go to the server's log.
package struct RefreshService: Service {
    package let runner: RefreshRunner
    package var refresher: Refresher { runner.refresher }
    package var state: RefreshState { runner.state }

    package init(context: AppContext, store: any BridgeStore, logger: Logger, onBatch: @escaping @Sendable () -> Void = {},
                 observe: @escaping @Sendable (RefreshEvent) -> Void = { _ in }) throws {
        runner = try RefreshRunner(context: context, store: store, log: Self.logging(logger), onBatch: onBatch,
                                   observe: observe)
    }

    /// A line of the refresher (or the live state poller) in the server's log, at its level.
    package static func logging(_ logger: Logger) -> @Sendable (LogLine) -> Void {
        { line in
            switch line.level {
            case .info: logger.info("\(line.message)")
            case .notice: logger.notice("\(line.message)")
            case .warning: logger.warning("\(line.message)")
            case .error: logger.error("\(line.message)")
            }
        }
    }

    package func run() async throws {
        let runner = self.runner
        try await cancelWhenGracefulShutdown { try await runner.run() }
    }
}
