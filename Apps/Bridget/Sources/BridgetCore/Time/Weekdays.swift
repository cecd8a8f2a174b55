import Foundation

/// Days of the week given as `mon-fri`, `sat,sun`, `daily`, `weekdays`, `weekends`: Monday-first numbers 0–6.
package enum Weekdays {
    package static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    package static func parse(_ text: String, option: String) throws -> Set<Int> {
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        switch lowered {
        case "daily", "all": return Set(0..<7)
        case "weekdays": return Set(0..<5)
        case "weekends", "weekend": return [5, 6]
        default: break
        }
        var days = Set<Int>()
        let parts = lowered.split(separator: ",", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: \.isEmpty) else {
            throw BridgetError(.inputBadDays, "\(option) '\(text)' names no weekday",
                                          hint: "write mon-fri, sat,sun, mon,wed,fri, weekdays, weekends or daily")
        }
        for part in parts {
            let ends = part.split(separator: "-").map { String($0.prefix(3)) }
            guard (1...2).contains(ends.count), let from = names.firstIndex(of: ends[0]),
                  let to = names.firstIndex(of: ends[ends.count - 1])
            else {
                throw BridgetError(.inputBadDays, "\(option) '\(text)' is not a list of weekdays",
                                              hint: "write mon-fri, sat,sun, mon,wed,fri, weekdays, weekends or daily")
            }
            var day = from
            while true {
                days.insert(day)
                if day == to { break }
                day = (day + 1) % 7
            }
        }
        return days
    }
}
