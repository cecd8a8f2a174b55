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
        guard (0...9999).contains(reading.year) else {
            return String(reading.description.prefix(20)) + String(format: "%03dZ", milliseconds)
        }
        // Written digit by digit into the string's storage: this runs twice for every stored row.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ width: Int, at start: Int) {
                var value = value
                for position in stride(from: start + width - 1, through: start, by: -1) {
                    buffer[position] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                }
            }
            put(reading.year, 4, at: 0)
            put(reading.month, 2, at: 5)
            put(reading.day, 2, at: 8)
            put(reading.hour, 2, at: 11)
            put(reading.minute, 2, at: 14)
            put(reading.second, 2, at: 17)
            put(milliseconds, 3, at: 20)
            for (position, byte) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
                buffer[position] = UInt8(byte.value)
            }
            return 24
        }
    }

    static func date(_ text: String) -> Date? {
        var text = text
        // Read in place: an export reads two of these a row.
        let parsed = text.withUTF8 { bytes in
            bytes.last == UInt8(ascii: "Z") ? FloatingTimestamp(utf8: UnsafeBufferPointer(rebasing: bytes.dropLast())) : nil
        }
        guard let reading = parsed else { return nil }
        return Date(timeIntervalSince1970: Double(reading.wallClockSeconds) + Double(reading.millisecond) / 1000)
    }
}
