import ArgumentParser
import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import Foundation

/// `bridget doctor`: is everything in place to sync and answer?
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the configuration, the store, the HTTP cache and the data source; one line each.",
        discussion: "Exit status 0 when every check is ok, 1 when one found a problem (its hint says what to do).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    struct Check: Encodable {
        let name: String
        let ok: Bool
        let detail: String
        let hint: String?
    }

    func run() async throws {
        var checks: [Check] = []
        let context: AppContext
        do {
            context = try global.context()
            let configuration = context.assembly.configuration
            var detail = "\(configuration.resolved.origin): provider \(configuration.provider.rawValue), "
                + "store \(configuration.store.rawValue)"
            if configuration.provider == .live {
                detail += configuration.appToken == nil
                    ? ", no app token in $\(configuration.live.appTokenVariable) (requests share a throttled pool)"
                    : ", app token set in $\(configuration.live.appTokenVariable)"
            }
            checks.append(Check(name: "config", ok: true, detail: detail, hint: nil))
        } catch {
            guard let shown = ErrorPresentation(error) else { throw error }
            checks.append(Check(name: "config", ok: false, detail: shown.message, hint: shown.hint))
            try report(checks)
            return
        }
        checks.append(await storeCheck(context))
        checks.append(await routesCheck(context))
        checks.append(await cacheCheck(context))
        checks.append(await sourceCheck(context))
        if context.configuration.provider == .live { checks.append(await stateCheck(context)) }
        try report(checks)
    }

    /// One reading of the live state feed, and what the store last kept of it.
    private func stateCheck(_ context: AppContext) async -> Check {
        guard let url = context.configuration.live.stateURL else {
            return Check(name: "state", ok: true, detail: "provider.live.state_url is null: no live state is polled",
                         hint: nil)
        }
        do {
            let (found, kept) = try await StoreReport.liveState(context)
            guard let source = found else {
                return Check(name: "state", ok: true, detail: "no live state feed", hint: nil)
            }
            let keptText = kept?.lastGoodPollAt.map { "; last good poll kept in the store: \(context.clock.display($0))" }
                ?? "; no poll kept in the store yet"
            do {
                let reading = try await source.currentStates()
                let raised = reading.positions.filter { $0.value == .raised }.keys.sorted()
                let notes = Set(reading.notes.map(\.name)).sorted()
                return Check(
                    name: "state", ok: true,
                    detail: "\(url): \(reading.positions.count) bridges read, raised now: "
                        + (raised.isEmpty ? "none" : raised.joined(separator: ", "))
                        + (notes.isEmpty ? "" : " (noted: \(notes.joined(separator: ", ")))") + keptText,
                    hint: nil)
            } catch let error as BridgeStateError {
                return Check(name: "state", ok: false, detail: "\(url): \(error)\(keptText)",
                             hint: "check the network and provider.live.state_url (null turns the live state off)")
            }
        } catch {
            return Self.failed("state", error)
        }
    }

    private func storeCheck(_ context: AppContext) async -> Check {
        do {
            // Only reads, so a store on a read-only disk is checked as it is (with the assembly's note).
            let health = try await StoreReport.opening(context, forReading: true).health()
            let (integrity, events, last) = (health.integrity, health.events, health.lastRun)
            let lastText = last.map { " last sync \($0.status.rawValue) at \(LocalClock.seattle.display($0.startedAt))" } ?? ""
            let configured = context.assembly.sourceIdentity
            let recorded = health.recorded
            let holdsText = switch recorded {
            case let recorded?: "; holds \(recorded.identity)"
            case nil where events > 0: "; its source is not recorded: the next sync or import records \(configured)"
            case nil: ""
            }
            if let recorded, recorded.identity != configured {
                return Check(name: "store", ok: false, detail: """
                    \(context.assembly.storeDescription): holds \(recorded.identity), but this configuration reads \
                    \(configured): a sync or import into it is refused
                    """, hint: "give this configuration a store of its own (store.path, or $BRIDGET_STORE_PATH)")
            }
            return Check(name: "store", ok: integrity == "ok",
                         detail: "\(context.assembly.storeDescription): \(events) events, integrity \(integrity);\(lastText)\(holdsText)",
                         hint: integrity == "ok" ? (events == 0 ? "run `bridget sync`" : nil)
                             : "move the file aside and sync again")
        } catch {
            return Self.failed("store", error)
        }
    }

    private func cacheCheck(_ context: AppContext) async -> Check {
        do {
            let cache = try context.assembly.makeDiskCache()
            let stats = await cache.statistics()
            return Check(name: "cache", ok: true,
                         detail: "\(cache.directory): \(stats.entries) entries, \(stats.bytes) of \(stats.maximumBytes) bytes",
                         hint: nil)
        } catch {
            return Self.failed("cache", error)
        }
    }

    private func sourceCheck(_ context: AppContext) async -> Check {
        do {
            let provider = try context.assembly.makeProvider()
            let status = await provider.checkConnection()
            let hint: String? = switch context.assembly.configuration.provider {
            case .live: "check the network and provider.live.base_url; `bridget sync` retries transient failures"
            case .cached: "sync once with provider.kind: live to fill the cache"
            case .ndw: "check provider.ndw.source (a URL or a file) and the network"
            case .sample: nil
            }
            return Check(name: "source", ok: status.isReachable, detail: "\(provider.name): \(status.detail)",
                         hint: status.isReachable ? nil : hint)
        } catch {
            return Self.failed("source", error)
        }
    }

    /// A check that failed with `error`: its message and hint as the CLI shows them, or the error as it describes
    /// itself when Bridget does not know it.
    private static func failed(_ name: String, _ error: any Error) -> Check {
        let shown = ErrorPresentation(error)
        return Check(name: name, ok: false, detail: shown?.message ?? "\(error)", hint: shown?.hint)
    }

    private func report(_ checks: [Check]) throws {
        let rows = checks.map { check in
            [Cell(check.ok ? "ok" : "problem"), Cell(check.name),
             Cell(check.detail + (check.hint.map { " (hint: \($0))" } ?? ""))]
        }
        try OutputWriter(format: output.format).write(checks, tabular: Tabular(columns: ["status", "check", "detail"], rows: rows))
        if checks.contains(where: { !$0.ok }) { throw ExitCode(ErrorTable.checkFailed) }
    }
}
