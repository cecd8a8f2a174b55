import ArgumentParser
import BridgetDTOs
import BridgetPersistence
import Foundation

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Configuration file (default: $BRIDGET_CONFIG, else ~/.config/bridget/bridget.yaml if present, else the "
            + "embedded default).", valueName: "path"))
    var config: String?
}

/// Options of commands that print data.
struct FormatOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: table (for people), json or csv (for programs).")
    var format: OutputFormat = .table
}

/// What a command needs: the loaded configuration and its assembly.
struct CommandContext: Sendable {
    let assembly: BridgetAssembly
    let environment: [String: String]

    static func load(_ options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> CommandContext
    {
        guard LocalClock.seattle.zone.identifier == "America/Los_Angeles" else {
            throw BridgetError.processing(
                "time-zone", "this system has no America/Los_Angeles time zone data, so Seattle times cannot be converted",
                hint: "install the tzdata package")
        }
        let configuration = try ConfigurationLoader(environment: environment).load(explicitPath: options.config)
        let assembly = BridgetAssembly(configuration: configuration)
        try assembly.checkTokenTransport()
        return CommandContext(assembly: assembly, environment: environment)
    }

    /// Opens the store; with the in-memory store, first syncs so read commands have data to show.
    func openStoreForReading() async throws -> any BridgeStore {
        let store = try await assembly.makeStore(forReading: true)
        if assembly.configuration.store == .memory {
            Terminal.note("store.kind is memory: syncing from \(assembly.configuration.provider.rawValue) first")
            _ = try await assembly.makeSyncPipeline(store: store).run(full: true)
        }
        return store
    }

    /// The stored opening model of a bridge, rebuilt first when the history changed since it was built.
    func currentModel(bridgeID: String, store: any BridgeStore) async throws -> OpeningModelDTO {
        guard let model = try await currentModels(bridgeIDs: [bridgeID], store: store).first else {
            throw BridgetError.validation("unknown-bridge", "no bridge \(bridgeID) in the store", hint: "run `bridget sync`")
        }
        return model
    }

    /// The stored opening models of some bridges, all rebuilt first when the history changed since they were built.
    func currentModels(bridgeIDs: [String], store: any BridgeStore) async throws -> [OpeningModelDTO] {
        let wanted = Set(bridgeIDs)
        let version = try await store.historyVersion()
        let stored = try await store.openingModels(bridgeIDs: Array(wanted))
        if stored.count == wanted.count, stored.allSatisfy({ $0.sourceVersion == version }) { return stored }
        if store.isReadOnly {
            Terminal.note("the stored opening model is out of date or missing and the store is read-only: "
                + "building it for this run only")
        }
        let rebuilt = try await OpeningModelRefresh.rebuild(store: store, processor: assembly.makeProcessor(store: store))
        return rebuilt.filter { wanted.contains($0.bridgeID) }
    }

    /// The catalog bridge named by an id or a name, or a validation error listing the bridges.
    func bridge(named text: String, in store: any BridgeCatalogStore) async throws -> BridgeInfoDTO {
        let known = try await store.bridges()
        let catalog = BridgeCatalog(bridges: known.isEmpty ? BridgeCatalog.seattle.bridges : known)
        guard let bridge = catalog.resolve(text) else {
            let names = catalog.bridges.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
            throw BridgetError.validation("unknown-bridge", "no bridge named '\(text)'", hint: "known bridges: \(names)")
        }
        return bridge
    }
}

/// Runs a command body, turning Bridget's errors (the packages' and the CLI's own, and cancellation) into a message on
/// standard error and their exit status, as `ErrorPresentation` gives them. Any other error propagates as it is.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        guard let shown = ErrorPresentation(error) else { throw error }
        Terminal.error(shown.description)
        throw ExitCode(shown.exitCode)
    }
}

/// Standard error, and whether it is a terminal.
enum Terminal {
    static func error(_ message: String) { writeError("error: " + message + "\n") }

    static func note(_ message: String) { writeError("note: " + message + "\n") }

    /// Writes lines to standard error, each made safe for a terminal (`terminalSafe`).
    static func writeError(_ text: String) { FileHandle.standardError.write(Data(text.terminalSafeLines.utf8)) }

    /// Redraws the progress line: the cursor back to the line's start, `line` made safe, the rest of the line
    /// cleared. The only place Bridget sends control characters of its own to a terminal.
    static func redrawLine(_ line: String) {
        FileHandle.standardError.write(Data(("\r" + line.terminalSafe + "\u{1B}[K").utf8))
    }

    /// True when standard error is an interactive terminal (progress is drawn only then).
    static var isInteractive: Bool { isatty(STDERR_FILENO) == 1 }
}

/// The options of commands that reject rows (`sync`, `import`): where the rejected rows go.
struct RejectOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Append each rejected row to this file as NDJSON: the row as received, its reason and where it came from "
            + "(default: the config's rejects_path, else nowhere).", valueName: "file"))
    var rejects: String?

    @Flag(name: .long, help: "Print up to three rejected rows of each reason.")
    var verbose = false

    /// The log for this run: to `--rejects`, else the configured path; examples only, with `--verbose` and no file.
    func log(configured: String?) throws -> RejectedRowLog? {
        let path = rejects ?? configured
        guard path != nil || verbose else { return nil }
        return try RejectedRowLog(path: path)
    }

    /// After the summary: the examples (with `--verbose`) and where the rows went, on standard error.
    func report(_ log: RejectedRowLog?, rejected: Int) {
        guard let log, rejected > 0 else { return }
        if verbose { for line in log.exampleLines { Terminal.writeError(line + "\n") } }
        if let path = log.path { Terminal.note("\(log.written) rejected rows appended to \(path)") }
    }
}
