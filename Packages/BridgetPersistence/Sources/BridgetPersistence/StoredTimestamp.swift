import BridgetDTOs
import Foundation

/// The text form of instants in the database: UTC ISO 8601 with milliseconds (`2026-09-24T05:35:00.000Z`).
///
/// Fixed width, so text order is time order, readable in the `sqlite3` shell, and understood by SQLite's date
/// functions.
enum StoredTimestamp {
    static func text(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = Int64(interval.rounded(.down))
        var milliseconds = Int(((interval - Double(seconds)) * 1000).rounded())
        if milliseconds == 1000 {
            seconds += 1
            milliseconds = 0
        }
        let reading = FloatingTimestamp(wallClockSeconds: seconds)
        let base = String(reading.description.prefix(20))
        let fraction = String(milliseconds)
        return base + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    static func date(_ text: String) -> Date? {
        guard text.hasSuffix("Z"), let reading = FloatingTimestamp(String(text.dropLast())) else { return nil }
        return Date(timeIntervalSince1970: Double(reading.wallClockSeconds) + Double(reading.millisecond) / 1000)
    }
}
