import BridgetCore
import BridgetPersistence
import Foundation

extension BridgetAssembly {
    /// What names the configured source's data (`SourceIdentity`): the Socrata dataset and the origin it is read
    /// from (the live and cached providers alike: the cached one replays the live one's pages), NDW's feed, or the
    /// sample's seed and shape. A sync or import records it in the store it first writes, and a store that records
    /// another refuses them.
    package var sourceIdentity: SourceIdentity {
        switch configuration.provider {
        case .sample:
            let sample = configuration.sample
            return SourceIdentity(kind: "sample", name: "seed \(sample.seed), rate scale \(Self.number(sample.rateScale))")
        case .live, .cached:
            let live = configuration.live
            return SourceIdentity(kind: "socrata", name: "dataset \(live.dataset) at \(Self.origin(of: live.baseURL))")
        case .ndw:
            let source = configuration.ndw.source
            let lowered = source.lowercased()
            let isURL = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
            return SourceIdentity(kind: "ndw", name: isURL ? "feed \(Self.origin(of: source))"
                                    : "file \(URL(fileURLWithPath: source).standardizedFileURL.path)")
        }
    }

    /// Records the configured source in `store`, or refuses a store that holds another's data: called by a sync and
    /// an import before they write anything, and by the live poller before it polls. A store made before stores
    /// recorded their source takes the first that writes to it, and says so once.
    package func claimSource(of store: any BridgeStore) async throws {
        let identity = sourceIdentity
        switch try await store.claimSource(identity, at: now()) {
        case .recorded, .same:
            return
        case .adopted:
            notes("the store at \(storeDescription) did not record its source; it now records \(identity), "
                  + "the source writing to it")
        case .other(let recorded):
            throw Self.otherSource(recorded, configured: identity, store: storeDescription)
        }
    }

    /// Refuses to start a process that would write `store` when it records another source; one that records none
    /// is left to the first sync.
    package func checkSource(of store: any BridgeStore) async throws {
        guard let recorded = try await store.recordedSource(), recorded.identity != sourceIdentity else { return }
        throw Self.otherSource(recorded, configured: sourceIdentity, store: storeDescription)
    }

    private static func otherSource(_ recorded: RecordedSource, configured: SourceIdentity, store: String) -> BridgetError {
        BridgetError(.configStoreSource, """
            the store at \(store) holds the openings of \(recorded.identity), but this configuration reads \
            \(configured): writing them into one store would mix two histories, so nothing was written
            """,
            hint: "give this configuration a store of its own (store.path, or $BRIDGET_STORE_PATH; "
                + "postgres.schema for PostgreSQL), or use the configuration that wrote this store")
    }

    /// `scheme://host[:port][/path]` of a URL, lower-cased where case means nothing, without a trailing slash, a
    /// query or credentials: the same origin written two ways is one source.
    static func origin(of text: String) -> String {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
              let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased()
        else { return text }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        return "\(scheme)://\(host)\(port)\(path)"
    }

    private static func number(_ value: Double) -> String { String(format: "%g", value) }
}
