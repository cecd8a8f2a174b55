import ArgumentParser
import BridgetContext
import BridgetCore
import Foundation

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Configuration file (default: $BRIDGET_CONFIG, else ~/.config/bridget/bridget.yaml if present, else the "
            + "embedded default).", valueName: "path"))
    var config: String?
}

/// The progress line of long commands (`sync`, `import`, `export`).
struct ProgressOptions: ParsableArguments {
    @Flag(name: .long, help: "No progress line.")
    var quiet = false

    /// Whether to draw it: not with `--quiet`, and only on a terminal.
    var shown: Bool { !quiet && Terminal.isInteractive }
}

/// Options of commands that print data.
struct FormatOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: table (for people), json or csv (for programs).")
    var format: OutputFormat = .table
}

extension GlobalOptions {
    /// The app core as the configuration these options name gives it; its notes go to standard error.
    func context() throws -> AppContext {
        try AppContext.load(configPath: config, notes: { Terminal.note($0) })
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
