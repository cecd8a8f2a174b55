import BridgetCore
import Foundation

/// A one-line progress display on standard error for long work (sync, import, export): rows done, rate, and,
/// when the total is known, a bar, the percentage and the time left. Redrawn at most five times a second, and
/// only on a terminal; silent when standard error is piped or with `--quiet`.
final class ProgressMeter: Sendable {
    /// What the total is counted in.
    enum Total {
        case rows(Int)
        case bytes(Int64)
    }

    private let verb: String
    private let enabled: Bool
    private let total: Total?
    private let started = Date()
    /// When the line was last drawn, and whether it is on the screen; the lock also keeps two draws from mixing.
    private let screen = Locked((lastDraw: Date.distantPast, drawn: false))

    init(verb: String, total: Total?, enabled: Bool) {
        self.verb = verb
        self.total = total
        self.enabled = enabled
    }

    /// Reports work done so far; `bytes` is how far into the input, when the total is in bytes. `resumed` is the
    /// part of it done by an earlier, interrupted run: it fills the bar but not the rate or the time left.
    func update(rows: Int, bytes: Int64? = nil, resumed: (rows: Int, bytes: Int64?) = (0, nil), detail: String? = nil) {
        guard enabled else { return }
        screen.withLock { screen in
            let now = Date()
            guard now.timeIntervalSince(screen.lastDraw) >= 0.2 else { return }
            screen = (now, true)
            Terminal.redrawLine(Self.line(verb: verb, rows: rows, bytes: bytes, total: total,
                                          elapsed: now.timeIntervalSince(started), detail: detail, resumed: resumed))
        }
    }

    /// Clears the line, so the summary starts on a clean one.
    func finish() {
        screen.withLock { screen in
            if screen.drawn { Terminal.redrawLine("") }
            screen.drawn = false
        }
    }

    /// The text of one progress line (pure, for tests).
    static func line(verb: String, rows: Int, bytes: Int64?, total: Total?, elapsed: TimeInterval, detail: String?,
                     resumed: (rows: Int, bytes: Int64?) = (0, nil)) -> String
    {
        let rate = elapsed > 0 ? Double(rows - resumed.rows) / elapsed : 0
        var parts = ["\(grouped(rows)) rows", "\(grouped(Int(rate))) rows/s"]
        if let detail { parts.insert(detail, at: 0) }
        var fraction: Double?
        var start = 0.0 // the fraction done before this run
        switch total {
        case .rows(let count) where count > 0:
            fraction = Double(rows) / Double(count)
            start = Double(resumed.rows) / Double(count)
        case .bytes(let count) where count > 0:
            fraction = bytes.map { Double($0) / Double(count) }
            start = Double(resumed.bytes ?? 0) / Double(count)
        default: break
        }
        guard let fraction = fraction.map({ min(max($0, 0), 1) }) else {
            return "\(verb): " + parts.joined(separator: " · ")
        }
        let width = 24
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        if fraction - start > 0.01, elapsed > 0.5 {
            parts.append("ETA " + clock((1 - fraction) * elapsed / (fraction - start)))
        }
        return "\(verb) \(bar) \(String(format: "%3d", Int(fraction * 100)))% " + parts.joined(separator: " · ")
    }

    /// `1,234,567`.
    static func grouped(_ value: Int) -> String { value.groupedDigits }

    /// `m:ss`, or `h:mm:ss` past an hour.
    static func clock(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
