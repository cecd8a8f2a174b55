import BridgetDTOs
import BridgetPersistence
import Foundation

/// The text form of instants in the database: UTC ISO 8601 with milliseconds (`2026-09-24T05:35:00.000Z`).
///
/// Fixed width, so text order is time order, readable in the `sqlite3` shell, and understood by SQLite's date
/// functions.
enum StoredTimestamp {
    /// The text form of `date`; an instant no store keeps (`StoredInstant`) is refused with an error, never trapped on.
    static func text(_ date: Date, _ what: @autoclosure () -> String = "a time") throws -> String {
        let (reading, milliseconds) = try parts(date, what())
        guard (0...9999).contains(reading.year) else { return fallback(reading, milliseconds) }
        return String(unsafeUninitializedCapacity: width) { buffer in
            write(reading, milliseconds, into: buffer)
            return width
        }
    }

    /// Appends the text form of `date` to `bytes`, with no string in between: the bulk upsert writes two a row.
    static func append(_ date: Date, to bytes: inout [UInt8]) throws {
        let (reading, milliseconds) = try parts(date, "a time")
        guard (0...9999).contains(reading.year) else {
            bytes.append(contentsOf: fallback(reading, milliseconds).utf8)
            return
        }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: width))
        bytes.withUnsafeMutableBufferPointer { buffer in
            write(reading, milliseconds, into: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// The length of the text form of a year 0 to 9999.
    private static let width = 24

    private static func parts(_ date: Date, _ what: @autoclosure () -> String) throws -> (FloatingTimestamp, Int) {
        let interval = try StoredInstant.seconds(date, what())
        var seconds = Int64(interval.rounded(.down))
        var milliseconds = Int(((interval - Double(seconds)) * 1000).rounded())
        if milliseconds == 1000 {
            seconds += 1
            milliseconds = 0
        }
        return (FloatingTimestamp(wallClockSeconds: seconds), milliseconds)
    }

    /// A year outside 0...9999 is written as `description` gives it, with the milliseconds (a wider year would
    /// otherwise lose the seconds' point to a fixed cut).
    private static func fallback(_ reading: FloatingTimestamp, _ milliseconds: Int) -> String {
        let text = reading.description
        return String(text[..<(text.firstIndex(of: ".") ?? text.endIndex)]) + String(format: ".%03dZ", milliseconds)
    }

    /// Writes the 24 bytes of a year 0 to 9999 digit by digit.
    private static func write(_ reading: FloatingTimestamp, _ milliseconds: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) {
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
        buffer[4] = UInt8(ascii: "-")
        buffer[7] = UInt8(ascii: "-")
        buffer[10] = UInt8(ascii: "T")
        buffer[13] = UInt8(ascii: ":")
        buffer[16] = UInt8(ascii: ":")
        buffer[19] = UInt8(ascii: ".")
        buffer[23] = UInt8(ascii: "Z")
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
