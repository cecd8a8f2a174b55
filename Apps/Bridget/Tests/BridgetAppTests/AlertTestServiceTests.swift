import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import BridgetRuntime
import Foundation
import Testing

/// `alert test` as the core runs it (`AlertRules.sendTest`): the message put in the outbox, claimed as a server
/// claims it, attempted by the build's delivery part, and each outcome said, or thrown as the error the table maps.
@Suite("alert test, the core service")
struct AlertTestServiceTests {
    /// A delivery part whose attempts answer `outcome`, counting them.
    final class Scripted: AlertDeliveryPart {
        let outcome: AlertAttemptOutcome
        let attempts = Locked(0)

        init(_ outcome: AlertAttemptOutcome) { self.outcome = outcome }

        /// A sender that sends nothing (`alert test` never asks for one).
        struct Idle: AlertSender {
            func run() async {}
            func nudge() {}
        }

        func sender(context: AppContext, store: any BridgeStore, log: @escaping @Sendable (String) -> Void)
            -> any AlertSender { Idle() }

        func lease(context: AppContext) -> TimeInterval { 60 }

        func attempt(_ entry: AlertOutboxEntryDTO, rule: AlertRuleDTO, context: AppContext, store: any BridgeStore)
            async -> AlertAttemptOutcome
        {
            attempts.withLock { $0 += 1 }
            return outcome
        }
    }

    static func rules() async throws -> (AlertRules, InMemoryBridgeStore) {
        let store = InMemoryBridgeStore()
        await store.upsertBridges(BridgeCatalog.seattle.bridges)
        _ = await store.saveAlert(AlertRuleDTO(
            name: "fremont", bridgeIDs: ["3"], timeZone: "America/Los_Angeles",
            destination: AlertDestination(kind: .webhook, url: "https://example.org/hooks/secret-path")), maximum: 10)
        return (AlertRules(context: try LiveStatusTests.context(), store: store), store)
    }

    @Test("without a delivery part the message waits in the outbox; with one it is claimed and attempted once")
    func queuedAndDelivered() async throws {
        let (rules, store) = try await Self.rules()
        guard case .queued(let id) = try await rules.sendTest(named: "fremont", delivery: nil) else {
            Issue.record("a build without alert delivery only queues the message")
            return
        }
        #expect(await store.outboxMessages(alert: "fremont", limit: 10).map(\.eventID).contains(id))

        let delivery = Scripted(.delivered(httpStatus: 204))
        let result = try await rules.sendTest(named: "fremont", delivery: delivery)
        guard case .delivered(_, let destination, let status) = result else {
            Issue.record("delivered: \(result)")
            return
        }
        #expect(status == 204 && !destination.contains("secret-path"), "the URL's path is hidden: \(destination)")
        #expect(delivery.attempts.withLock { $0 } == 1)
    }

    @Test("a receiver that is gone or does not take the message is an error with its code; an unknown alert is one too")
    func failures() async throws {
        let (rules, _) = try await Self.rules()
        let gone = await #expect(throws: BridgetError.self) {
            try await rules.sendTest(named: "fremont", delivery: Scripted(.gone(httpStatus: 410)))
        }
        #expect(gone?.kind == .alertGone && gone?.exitCode == 69)
        let retry = await #expect(throws: BridgetError.self) {
            try await rules.sendTest(named: "fremont", delivery: Scripted(
                .retry(httpStatus: 503, detail: "HTTP 503", next: Date().addingTimeInterval(60))))
        }
        #expect(retry?.kind == .alertUndelivered && retry?.message.contains("HTTP 503") == true)
        let unknown = await #expect(throws: BridgetError.self) {
            try await rules.sendTest(named: "nosuch", delivery: nil)
        }
        #expect(unknown?.kind == .inputUnknownAlert && unknown?.exitCode == 64)
    }
}
