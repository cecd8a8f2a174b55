import BridgetAnalysis
import BridgetCaching
import BridgetCore
import BridgetDTOs
import BridgetNetworking
import BridgetPersistence
import CBridgetMemory
import Foundation

/// The layouts `bridget import` reads and `bridget export` writes.
package enum RowFileFormat: String, CaseIterable, Sendable {
    case csv, ndjson, json

    /// The format a file name implies, if any.
    package init?(fileName: String) {
        switch URL(fileURLWithPath: fileName).pathExtension.lowercased() {
        case "csv": self = .csv
        case "ndjson", "jsonl": self = .ndjson
        case "json": self = .json
        default: return nil
        }
    }
}

/// A file (or standard input) to import.
package struct ImportSource: Sendable {
    /// How messages name it: the path as given, or "standard input".
    package let label: String
    /// The absolute path, which keys the checkpoint; `nil` for standard input (which cannot resume).
    package let path: String?
    package let descriptor: Int32
    package let format: RowFileFormat
    /// Bytes in the file, when it is a regular file.
    package let size: Int64?
    /// Size, modification time and a checksum of the first 64 KiB: a checkpoint applies only to the same content.
    package let identity: String?

    package static func open(_ argument: String, format explicit: RowFileFormat?) throws -> ImportSource {
        if argument == "-" {
            guard let explicit else {
                throw BridgetError(.inputImportFormat, "reading standard input needs --format csv|ndjson|json")
            }
            return ImportSource(label: "standard input", path: nil, descriptor: STDIN_FILENO, format: explicit, size: nil,
                                identity: nil)
        }
        // No input (a missing file, a folder) is said first, whatever the name implies about the format.
        let path = URL(fileURLWithPath: argument).standardizedFileURL.resolvingSymlinksInPath().path
        let descriptor = SystemCall.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BridgetError(.dataImportOpen, "cannot read \(argument): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            SystemCall.close(descriptor)
            throw BridgetError(.dataImportOpen, "cannot read \(argument): \(reason)")
        }
        guard (status.st_mode & S_IFMT) != S_IFDIR else {
            SystemCall.close(descriptor)
            throw BridgetError(.dataImportOpen, "\(argument) is a folder, not a file",
                                    hint: "name a .csv, .ndjson or .json file inside it")
        }
        guard let format = explicit ?? RowFileFormat(fileName: argument) else {
            SystemCall.close(descriptor)
            throw BridgetError(.inputImportFormat, "cannot tell the format of \(argument) from its name",
                hint: "name it .csv, .ndjson or .json, or pass --format csv|ndjson|json")
        }
        let isRegular = (status.st_mode & S_IFMT) == S_IFREG
        var identity: String?
        if isRegular {
            var head = [UInt8](repeating: 0, count: 65_536)
            let count = pread(descriptor, &head, head.count, 0)
            let hash = head.withUnsafeBytes { FNV1a.hash(UnsafeRawBufferPointer(rebasing: $0.prefix(max(count, 0)))) }
            identity = "size=\(status.st_size);mtime=\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec);head=\(String(hash, radix: 16))"
        }
        return ImportSource(label: argument, path: isRegular ? path : nil, descriptor: descriptor, format: format,
                            size: isRegular ? Int64(status.st_size) : nil, identity: identity)
    }

    package func close() {
        if descriptor != STDIN_FILENO { SystemCall.close(descriptor) }
    }
}

/// What an import did, for the summary and `--summary json`.
package struct ImportReport: Sendable, Codable, Equatable {
    package var source: String
    package var format: String
    /// Rows read from the input, in this run and in the interrupted runs it resumed.
    package var rowsRead: Int
    /// Rows already imported by an interrupted run when this one started (0 for a fresh import).
    package var resumedAfterRows: Int
    package var inserted: Int
    package var updated: Int
    package var unchanged: Int
    package var rejected: Int
    package var rejectedByReason: [String: Int]
    package var seconds: Double
    /// False when interrupted: what was committed stays, and the same command continues from there.
    package var completed: Bool
}

/// Streams rows from a file into the store: read in chunks, validated with the same rules as sync, written in
/// batches of `batchSize` rows, each in one transaction together with a checkpoint of where the batch ended in
/// the file. Three stages overlap: reading the next batch, validating the one before, and writing the one before that.
package struct ImportPipeline: Sendable {
    /// A batch validated, and its valid events as the store staged them.
    typealias Validated = (outcome: ObservationValidator.Outcome, staged: StagedEvents)

    package let processor: any BackgroundProcessing
    package let store: any BridgeStore
    package let batchSize: Int
    package let now: @Sendable () -> Date
    package var chunkSize = 1 << 20
    /// Where rejected rows go (a file and `--verbose` examples), if anywhere.
    package var rejects: RejectedRowLog?
    /// Where the import's notes to the user go ("starting from the top").
    package var note: @Sendable (String) -> Void = { _ in }
    /// Records the configured source in the store, or refuses a store that holds another's
    /// (`BridgetAssembly.claimSource`): run before anything is written.
    package var claimSource: @Sendable () async throws -> Void = {}

    package init(processor: any BackgroundProcessing, store: any BridgeStore, batchSize: Int,
                 now: @escaping @Sendable () -> Date, rejects: RejectedRowLog? = nil,
                 note: @escaping @Sendable (String) -> Void = { _ in }) {
        self.processor = processor
        self.store = store
        self.batchSize = batchSize
        self.now = now
        self.rejects = rejects
        self.note = note
    }

    /// Progress after each committed batch.
    package struct Progress: Sendable {
        package var rows: Int
        package var bytes: Int64
        /// Rows and bytes done by the interrupted runs this one resumed.
        package var resumedRows = 0
        package var resumedBytes: Int64 = 0
    }

    package func run(_ source: ImportSource, restart: Bool,
                     progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws -> ImportReport
    {
        let began = Date()
        try await claimSource()
        try await store.upsertBridges(BridgeCatalog.seattle.bridges)
        var run = ImportRun(pipeline: self, source: source, progress: progress,
                            record: try await RunBook.start(provider: "import", store: store, at: now()))
        do {
            try await run.resume(restart: restart)
            try await run.readAll()
            if !run.interrupted, let path = source.path { try await store.removeImportCheckpoint(source: path) }
        } catch {
            // Let the batch in flight land (or fail) before recording the run, so the record matches the store.
            if let inFlight = run.inFlight, let counts = try? await inFlight.value { run.totals = run.totals + counts }
            run.record.counts = Self.difference(run.totals, run.startCounts)
            _ = await RunBook.close(run.record, after: error, interrupted: false, store: store, now: now)
            throw error
        }
        run.record.counts = Self.difference(run.totals, run.startCounts)
        _ = try await RunBook.finish(run.record, as: run.interrupted ? .cancelled : .succeeded, store: store, at: now())
        let checkpoint = run.checkpoint
        return ImportReport(
            source: source.label, format: source.format.rawValue, rowsRead: checkpoint.rowsRead,
            resumedAfterRows: run.resumedRows, inserted: run.totals.inserted, updated: run.totals.updated,
            unchanged: run.totals.unchanged, rejected: checkpoint.rejections.total,
            rejectedByReason: Dictionary(uniqueKeysWithValues: checkpoint.rejections.byReason.map { ($0.key.rawValue, $0.value) }),
            seconds: Date().timeIntervalSince(began), completed: !run.interrupted)
    }

    /// What this run did, without what the runs it resumed did.
    private static func difference(_ totals: UpsertCounts, _ start: UpsertCounts) -> UpsertCounts {
        UpsertCounts(inserted: totals.inserted - start.inserted, updated: totals.updated - start.updated,
                     unchanged: totals.unchanged - start.unchanged)
    }
}

/// One import's state as it runs: where it is in the file (its checkpoint), the batch being validated and the one
/// being written, and the counts so far. Three stages overlap: reading the next batch, validating the one before,
/// and writing the one before that.
private struct ImportRun {
    typealias Validating = (task: Task<ImportPipeline.Validated, any Error>, rows: Int, end: RowPosition, lines: [Int])

    let pipeline: ImportPipeline
    let source: ImportSource
    let progress: @Sendable (ImportPipeline.Progress) -> Void
    var record: SyncRunRecord
    var checkpoint: ImportCheckpoint
    var resumedRows = 0
    var resumedBytes: Int64 = 0
    var startCounts = UpsertCounts()
    var totals = UpsertCounts()
    var interrupted = false
    /// The write under way: not a child task, so Ctrl-C lets the batch in flight commit, then stops reading.
    var inFlight: Task<UpsertCounts, any Error>?
    /// The batch being validated while the next is read; validating ends with the store's staging of the valid
    /// events (its encoding of them, made off the writer).
    private var validating: Validating?
    private var buffer: [UInt8]

    init(pipeline: ImportPipeline, source: ImportSource, progress: @escaping @Sendable (ImportPipeline.Progress) -> Void,
         record: SyncRunRecord) {
        self.pipeline = pipeline
        self.source = source
        self.progress = progress
        self.record = record
        checkpoint = ImportCheckpoint(source: source.path ?? "-", identity: source.identity ?? "")
        buffer = [UInt8](repeating: 0, count: pipeline.chunkSize)
    }

    /// Takes up an interrupted import of the same file where it stopped (or starts from the top when the file
    /// changed or `restart` says so).
    mutating func resume(restart: Bool) async throws {
        let store = pipeline.store
        if let path = source.path {
            if restart { try await store.removeImportCheckpoint(source: path) }
            if let saved = try await store.importCheckpoint(source: path) {
                if saved.identity == source.identity, let size = source.size, saved.offset <= size {
                    checkpoint = saved
                    resumedRows = saved.rowsRead
                    resumedBytes = saved.offset
                } else {
                    pipeline.note("\(source.label) changed since an interrupted import of it: starting from the top")
                    try await store.removeImportCheckpoint(source: path)
                }
            }
        }
        totals = checkpoint.counts
        startCounts = checkpoint.counts
    }

    /// Reads, validates and writes from the checkpoint to the end of the file (or until the task is cancelled: the
    /// batch already read and validated is written too); a row that does not parse stops it once the batches before
    /// it are stored.
    mutating func readAll() async throws {
        var reader = RowReader(format: source.format)
        var batcher = Batcher(batchSize: max(pipeline.batchSize, 1))
        var pending: [UInt8] = []
        if checkpoint.offset > 0 {
            // Read the head again (the CSV header, or the array's opening), then jump to the checkpoint.
            let count = try readChunk()
            _ = try buffer.withUnsafeBufferPointer { all in
                try reader.scan(UnsafeBufferPointer(rebasing: all[..<count]), isFinal: false) { _, _ in }
            }
            reader.resume(at: RowPosition(offset: checkpoint.offset, line: checkpoint.line))
            guard lseek(source.descriptor, off_t(checkpoint.offset), SEEK_SET) == checkpoint.offset else {
                throw BridgetError(.dataImportRead, "cannot seek in \(source.label)")
            }
        }
        var finished = false
        while !finished {
            if Task.isCancelled {
                interrupted = true
                break
            }
            let count = try readChunk()
            finished = count == 0
            pending.append(contentsOf: buffer[0..<count])
            var syntaxError: RowSyntaxError?
            do {
                let consumed = try pending.withUnsafeBufferPointer { bytes in
                    try reader.scan(bytes, isFinal: finished) { row, position in batcher.add(row, at: position) }
                }
                pending.removeFirst(consumed)
            } catch let error as RowSyntaxError {
                syntaxError = error // the whole batches read before it are still written below
            }
            if finished, syntaxError == nil { batcher.flush() }
            for batch in batcher.takeReady() { try await validate(batch) }
            if let syntaxError {
                try await drain()
                throw BridgetError(.dataImportSyntax, "\(source.label) line \(syntaxError.line): \(syntaxError.message)",
                    hint: "the \(checkpoint.rowsRead.groupedDigits) rows before its batch are stored; "
                        + "fix the file and import it again")
            }
        }
        try await drain()
    }

    /// Starts validating `batch` (reading its rows as observations is part of that: off the reading stage), and
    /// writes the batch validated before it.
    private mutating func validate(_ batch: (rows: [SocrataRow], end: RowPosition, lines: [Int])) async throws {
        let (processor, store, rows) = (pipeline.processor, pipeline.store, batch.rows)
        let next = Task { () -> ImportPipeline.Validated in
            var reader = SocrataObservationReader()
            let outcome = try await processor.validate(reader.observations(rows), catalog: BridgeCatalog.seattle,
                                                       clock: .seattle)
            return (outcome, store.stageEvents(outcome.events))
        }
        if let previous = validating { try await write(previous) }
        validating = (next, batch.rows.count, batch.end, batch.lines)
    }

    /// Writes the batch being validated, and waits for every write to land.
    private mutating func drain() async throws {
        if let last = validating { try await write(last) }
        validating = nil
        if let inFlight { totals = totals + (try await inFlight.value) }
        inFlight = nil
    }

    private mutating func readChunk() throws -> Int {
        let descriptor = source.descriptor
        while true {
            let count = buffer.withUnsafeMutableBytes { SystemCall.read(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw BridgetError(.dataImportRead, "cannot read \(source.label): \(String(cString: strerror(errno)))")
        }
    }

    /// Waits for a validated batch and the write before it, then starts its write with its checkpoint.
    private mutating func write(_ batch: Validating) async throws {
        let (processed, staged) = try await batch.task.value
        let (label, runID) = (source.label, record.id)
        try pipeline.rejects?.record(processed.rejected, run: runID) { rejection in
            RejectedRowOrigin(file: label, line: batch.lines[rejection.index])
        }
        if let inFlight { totals = totals + (try await inFlight.value) }
        inFlight = nil
        // The batch before is freed by now: hand its pages back, so the peak stays that of a few batches.
        bridget_release_free_memory()
        checkpoint.counts = totals
        checkpoint.offset = batch.end.offset
        checkpoint.line = batch.end.line
        checkpoint.rowsRead += batch.rows
        checkpoint.rejections.merge(processed.rejectionCounts)
        record.fetched += batch.rows
        record.rejections.merge(processed.rejectionCounts)
        let (store, saved) = (pipeline.store, source.path == nil ? nil : checkpoint)
        inFlight = Task { try await store.upsertEvents(staged, checkpoint: saved) }
        progress(ImportPipeline.Progress(rows: checkpoint.rowsRead, bytes: batch.end.offset, resumedRows: resumedRows,
                                         resumedBytes: resumedBytes))
    }
}

/// Cuts rows into batches. A batch is cut only before a row whose reading is far from Seattle's offset changes, so
/// rows that can depend on each other (the repeated autumn hour) are always judged together, as validation requires.
private struct Batcher {
    package let batchSize: Int
    private var current: [SocrataRow] = []
    /// The line each row of `current` ends on, for the report of rejected rows.
    private var lines: [Int] = []
    private var end = RowPosition(offset: 0, line: 1)
    private var ready: [(rows: [SocrataRow], end: RowPosition, lines: [Int])] = []

    package init(batchSize: Int) {
        self.batchSize = batchSize
        current.reserveCapacity(batchSize)
        lines.reserveCapacity(batchSize)
    }

    package mutating func add(_ row: SocrataRow, at position: RowPosition) {
        if current.count >= batchSize, !SocrataObservationReader.mayDependOnBatch(row, clock: .seattle) { flush() }
        current.append(row)
        lines.append(position.line)
        end = position
    }

    package mutating func flush() {
        guard !current.isEmpty else { return }
        ready.append((current, end, lines))
        current = []
        current.reserveCapacity(batchSize)
        lines = []
        lines.reserveCapacity(batchSize)
    }

    package mutating func takeReady() -> [(rows: [SocrataRow], end: RowPosition, lines: [Int])] {
        defer { ready = [] }
        return ready
    }
}

/// The scanner for a format.
private struct RowReader {
    private var json: SocrataJSONScanner
    private var csv: SocrataCSVScanner?

    package init(format: RowFileFormat) {
        json = SocrataJSONScanner(layout: format == .json ? .array : .lines)
        csv = format == .csv ? SocrataCSVScanner() : nil
    }

    package mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, isFinal: Bool,
                       row body: (SocrataRow, RowPosition) throws -> Void) throws -> Int {
        // `csv!` mutates the scanner in place (an `if var` copy would copy its buffers); it is checked just before.
        if csv != nil { return try csv!.scan(bytes, isFinal: isFinal, row: body) }
        return try json.scan(bytes, isFinal: isFinal, row: body)
    }

    package mutating func resume(at position: RowPosition) {
        if csv != nil { csv!.resume(at: position) } else { json.resume(at: position) } // in place, as in `scan`
    }
}
