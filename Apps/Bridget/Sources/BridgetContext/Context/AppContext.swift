import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation

/// The app core as a front end holds it: the loaded configuration, its assembly, the process environment, and where
/// the core's notes go (standard error for the CLI, the log for the server). Every command, endpoint and page starts
/// from one.
package struct AppContext: Sendable {
    package let assembly: BridgetAssembly
    package let environment: [String: String]

    package init(assembly: BridgetAssembly, environment: [String: String]) {
        self.assembly = assembly
        self.environment = environment
    }

    /// Loads the configuration (`configPath`, else `$BRIDGET_CONFIG`, the user's file or the embedded default) and
    /// assembles it. `notes` receives what the core tells the user along the way ("reading the store as it is").
    package static func load(
        configPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Date = { Date() }, notes: @escaping @Sendable (String) -> Void
    ) throws -> AppContext {
        guard LocalClock.seattle.zone.identifier == "America/Los_Angeles" else {
            throw BridgetError(.processingTimeZone, "this system has no America/Los_Angeles time zone data, so Seattle times cannot be converted",
                hint: "install the tzdata package")
        }
        let configuration = try ConfigurationLoader(environment: environment).load(explicitPath: configPath)
        let assembly = BridgetAssembly(configuration: configuration, now: now, notes: notes)
        try assembly.checkTokenTransport()
        return AppContext(assembly: assembly, environment: environment)
    }

    /// The configuration this context was loaded from.
    package var configuration: BridgetConfiguration { assembly.configuration }

    /// The clock people read times in (the configured source's zone).
    package var clock: LocalClock { assembly.clock }

    /// Tells the user something along the way (where depends on the front end).
    package func note(_ message: String) { assembly.notes(message) }

    /// Opens the store; with the in-memory store, first syncs so read commands have data to show.
    /// `writerAtOnce`: for a process that stays (`openReopeningStore`), whose store's writer opens as it starts.
    package func openStoreForReading(writerAtOnce: Bool = false) async throws -> any BridgeStore {
        let store = try await assembly.makeStore(forReading: true, writerAtOnce: writerAtOnce)
        if assembly.configuration.store == .memory {
            note("store.kind is memory: syncing from \(assembly.configuration.provider.rawValue) first")
            _ = try await assembly.makeSyncPipeline(store: store).run(full: true)
        }
        return store
    }

    /// The store as a long-running process holds it (`ReopeningStore`): reopened when another file replaces its
    /// file; each call as it is until `guarded(by:)` gives a guard (the server's deadline, for requests).
    package func openReopeningStore() async throws -> ReopeningStore {
        reopening(try await openStoreForReading(writerAtOnce: true))
    }

    /// `store`, opened from this context's configuration, as a long-running process holds it.
    package func reopening(_ store: any BridgeStore) -> ReopeningStore {
        let assembly = self.assembly
        return ReopeningStore(store: store, name: "the store at \(assembly.storeDescription)", note: assembly.notes) {
            try await assembly.makeStore(forReading: true, writerAtOnce: true)
        }
    }

    /// Fails with "the store is empty: run `bridget sync`" (exit 66, no input) when the store holds no opening, so a
    /// command never answers "no bridge 3" or "choose a later date" about a store that has nothing yet.
    package func requireHistory(_ store: any EventStore, for question: String) async throws {
        guard try await store.latestOpening() == nil else { return }
        throw storeEmpty(for: question)
    }

    /// "The store is empty: run `bridget sync`" (exit 66, no input), for `question`.
    package func storeEmpty(for question: String) -> BridgetError {
        BridgetError(.dataStoreEmpty, "the store at \(assembly.storeDescription) holds no openings yet, so \(question) has "
                + "nothing to go on",
            hint: "run `bridget sync` (or `bridget import FILE`) first")
    }

    /// The stored catalog (the embedded Seattle one before any sync), as bridge names are resolved against it.
    package func catalog(in store: any BridgeCatalogStore) async throws -> BridgeCatalog {
        let known = try await store.bridges()
        return BridgeCatalog(bridges: known.isEmpty ? BridgeCatalog.seattle.bridges : known)
    }

    /// The catalog bridge named by an id or a name, or a validation error listing the bridges.
    package func bridge(named text: String, in store: any BridgeCatalogStore) async throws -> BridgeInfoDTO {
        try bridge(named: text, in: try await catalog(in: store))
    }

    /// The bridge of `catalog` named by an id or a name, or a validation error listing the bridges.
    package func bridge(named text: String, in catalog: BridgeCatalog) throws -> BridgeInfoDTO {
        guard let bridge = catalog.resolve(text) else {
            let names = catalog.bridges.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
            throw BridgetError(.inputUnknownBridge, "no bridge named '\(text)'", hint: "known bridges: \(names)")
        }
        return bridge
    }

    /// The time grammar of every time option and parameter, on the configured clock and this moment.
    package var timeGrammar: TimeGrammar { TimeGrammar(clock: assembly.clock, now: assembly.now()) }
}
