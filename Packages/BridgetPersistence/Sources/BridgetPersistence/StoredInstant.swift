import Foundation

/// The instants a store keeps: finite times in the years 0 to 9999. Every conversion of a `Date` to a stored form
/// goes through `seconds(_:_:)`, so a number from outside (a receiver's `Retry-After: 1e300`, a `nan`) is refused
/// with an error instead of trapping in an integer conversion.
public enum StoredInstant {
    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z as seconds since 1970.
    public static let seconds: ClosedRange<Double> = -62_167_219_200 ... 253_402_300_799.999

    /// `date`'s seconds since 1970, or `StoreError.invalidInstant` naming `what`.
    public static func seconds(_ date: Date, _ what: @autoclosure () -> String) throws -> Double {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, seconds.contains(interval) else { throw StoreError.invalidInstant(what: what()) }
        return interval
    }

    /// `date` as whole milliseconds since 1970 (rounded down), or `StoreError.invalidInstant` naming `what`.
    public static func milliseconds(_ date: Date, _ what: @autoclosure () -> String) throws -> Int64 {
        Int64((try seconds(date, what()) * 1000).rounded(.down))
    }

    /// Whether a store keeps `date`.
    public static func isStorable(_ date: Date) -> Bool {
        date.timeIntervalSince1970.isFinite && seconds.contains(date.timeIntervalSince1970)
    }
}
