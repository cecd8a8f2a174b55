import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import Foundation

/// What a poll did, for metrics: `outcome` is `ok` or the failure's name (`http-503`, `html-page`, …), `notes` how
/// many of each note and transition it met (`single-encoded`, `unknown-bridge`, `missing`, `opened`, `closed`, …),
/// whether or not the log said so this time.
package struct LivePollReport: Sendable {
    package let outcome: String
    package let notes: [String: Int]
    package let lastGoodPoll: Date?
    /// Whether this process polled (false: another holds the lease).
    package let polled: Bool
}

/// Polls the live state feed every `statePollSeconds` (plus up to a tenth at random) and writes what changed:
/// `serve` and `watch` run it beside the refresher. One process polls a store at a time: each poll first claims (or
/// renews) the store's lease for three intervals (5 s at least), and writes only while it holds it, so when the
/// holder dies another takes over within a few intervals. A failed poll waits longer each time (up to 2 min, or a
/// sane `Retry-After`), so a city endpoint on a bad day is not hammered.
package struct LiveStatePoller: Sendable {
    package let source: any BridgeStateSource
    package let store: any BridgeStore
    package let clock: LocalClock
    package let interval: TimeInterval
    package let holder: String
    package let now: @Sendable () -> Date
    package let log: @Sendable (LogLine) -> Void
    package let observe: @Sendable (LivePollReport) -> Void

    package init(source: any BridgeStateSource, store: any BridgeStore, clock: LocalClock, interval: TimeInterval,
                 holder: String, now: @escaping @Sendable () -> Date,
                 log: @escaping @Sendable (LogLine) -> Void,
                 observe: @escaping @Sendable (LivePollReport) -> Void = { _ in }) {
        self.source = source
        self.store = store
        self.clock = clock
        self.interval = interval
        self.holder = holder
        self.now = now
        self.log = log
        self.observe = observe
    }

    /// The poller of `context`'s live provider, or `nil` when its state feed is off (or the provider is not live).
    package static func make(context: AppContext, store: any BridgeStore, log: @escaping @Sendable (LogLine) -> Void,
                             observe: @escaping @Sendable (LivePollReport) -> Void = { _ in }) async throws -> LiveStatePoller? {
        guard let source = try await context.assembly.makeStateSource(store: store) else { return nil }
        return LiveStatePoller(
            source: source, store: store, clock: context.clock,
            interval: context.configuration.live.statePollSeconds, holder: BridgetAssembly.processIdentity,
            now: context.assembly.now, log: log, observe: observe)
    }

    /// How long a claim holds without renewal: three polls, 5 s at least.
    package var leaseSeconds: TimeInterval { max(3 * interval, 5) }

    /// Polls until cancelled; then gives up the lease so another host takes over at once.
    package func run() async {
        log(.init(level: .info, message: "state: polling \(source.origin) every \(Self.seconds(interval)) s"))
        var failures = 0
        var otherHolder: String?
        while !Task.isCancelled {
            var wait = interval * Double.random(in: 1...1.1)
            do {
                let result = try await pollOnce()
                switch result {
                case .heldBy(let other):
                    if other != otherHolder {
                        log(.init(level: .info, message: "state: \(other) polls the feed; this one waits to take over"))
                    }
                    otherHolder = other
                    failures = 0
                case .polled(let failure):
                    if otherHolder != nil {
                        log(.init(level: .notice, message: "state: took over polling the feed"))
                        otherHolder = nil
                    }
                    if let failure {
                        failures += 1
                        var backoff = min(interval * pow(2, Double(min(failures, 10))), max(120, interval))
                        if case .httpStatus(_, let retryAfter?) = failure.kind { backoff = max(backoff, min(retryAfter, 600)) }
                        wait = max(wait, backoff)
                    } else {
                        failures = 0
                    }
                }
            } catch is CancellationError {
                break
            } catch {
                failures += 1
                log(.init(level: .warning, message: "state: the poll was not saved: \(error)"))
                wait = max(wait, min(interval * pow(2, Double(min(failures, 10))), max(120, interval)))
            }
            do {
                try await Task.sleep(for: .seconds(wait))
            } catch {
                break
            }
        }
        // Released from a task of its own: this one is cancelled, and a store may refuse a cancelled caller.
        let (store, holder) = (self.store, self.holder)
        await Task { try? await store.releaseLiveFeed(holder: holder) }.value
    }

    /// What one turn did.
    package enum Turn: Sendable {
        /// Another process holds the lease.
        case heldBy(String)
        /// This one polled; the failure when the feed gave no reading.
        case polled(BridgeStateError?)
    }

    /// One turn: claim, read, apply, save.
    package func pollOnce() async throws -> Turn {
        let start = now()
        let lease = try await store.claimLiveFeed(holder: holder, now: start, until: start.addingTimeInterval(leaseSeconds))
        guard lease.holder == holder else {
            observe(LivePollReport(outcome: "standby", notes: [:], lastGoodPoll: nil, polled: false))
            return .heldBy(lease.holder)
        }
        let result: Result<BridgeStateReading, BridgeStateError>
        do {
            result = .success(try await source.currentStates())
        } catch let error as BridgeStateError {
            result = .failure(error)
        }
        let bridges = try await store.bridges()
        var previous = try await store.liveFeedState() ?? LiveFeedState(source: source.origin)
        if previous.source != source.origin {
            log(.init(level: .notice, message: "state: the kept state was of \(previous.source); starting afresh for \(source.origin)"))
            previous = LiveFeedState(source: source.origin)
        }
        let at = now()
        let tracker = LiveStateTracker(bridges: bridges, clock: clock, settings: .init(pollSeconds: interval))
        let outcome = tracker.apply(result, to: previous, at: at)
        _ = try await store.saveLiveFeed(outcome.state, events: outcome.events, holder: holder, now: at)
        for line in outcome.lines { log(.init(level: line.level, message: line.message)) }
        let failure: BridgeStateError? = if case .failure(let error) = result { error } else { nil }
        observe(LivePollReport(outcome: failure?.name ?? "ok", notes: outcome.counts,
                               lastGoodPoll: outcome.state.lastGoodPollAt, polled: true))
        return .polled(failure)
    }

    static func seconds(_ value: TimeInterval) -> String { String(format: "%g", value) }
}
