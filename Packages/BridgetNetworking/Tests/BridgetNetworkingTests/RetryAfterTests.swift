import BridgetNetworking
import Foundation
import Testing

/// `Retry-After` as a claim from outside: the one reader the feed client, the state feed and (later) the alert
/// deliverer share.
@Suite("Retry-After")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT

    static func seconds(_ value: String?, limit: TimeInterval = 86_400, now: Date = Self.now) -> TimeInterval? {
        RetryAfter.seconds(value, now: now, limit: limit)
    }

    @Test("delay-seconds: ASCII digits, optional whitespace around them")
    func delaySeconds() {
        #expect(Self.seconds("120") == 120)
        #expect(Self.seconds("0") == 0)
        #expect(Self.seconds(" 7\t") == 7)
        #expect(Self.seconds("0000000042") == 42)
    }

    @Test("an HTTP date in each of its three forms, thirty seconds ahead")
    func httpDates() {
        #expect(Self.seconds("Sun, 06 Nov 1994 08:50:07 GMT") == 30) // IMF-fixdate
        #expect(Self.seconds("Sunday, 06-Nov-94 08:50:07 GMT") == 30) // RFC 850
        #expect(Self.seconds("Sun Nov  6 08:50:07 1994") == 30) // asctime
        #expect(Self.seconds("Sun Nov 16 08:49:37 1994", limit: .infinity) == 864_000)
    }

    @Test("a date already past is no wait; a wait past the limit is the limit")
    func boundsOfAWait() {
        #expect(Self.seconds("Sun, 06 Nov 1994 08:00:00 GMT") == 0)
        #expect(Self.seconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(Self.seconds("7200", limit: 600) == 600)
        #expect(Self.seconds("9999999999") == 86_400) // ten digits: three centuries, capped
        #expect(Self.seconds("Mon, 07 Nov 1994 08:49:37 GMT", limit: 600) == 600)
        #expect(Self.seconds("Sun, 06 Nov 1994 08:50:07 GMT", limit: .nan) == 0)
    }

    @Test("RFC 850's two-digit year is the latest not more than 50 years ahead")
    func twoDigitYears() {
        let in2026 = Date(timeIntervalSince1970: 1_780_000_000) // 2026-05-28
        #expect(Self.seconds("Friday, 01-Jan-99 00:00:00 GMT", now: in2026) == 0) // 1999, not 2099
        #expect(Self.seconds("Wednesday, 01-Jan-70 00:00:00 GMT", now: in2026) == 86_400) // 2070: ahead, capped
    }

    @Test("anything else is not read", arguments: [
        "nan", "-1", "+5", "1e300", "1.5", "99999999999", "", "   ", "soon", "0x10", "١٢٣",
        "Sun, 06 Nov 1994 08:50:07 UTC", "sun, 06 nov 1994 08:50:07 gmt", "Sun, 6 Nov 1994 08:50:07 GMT",
        "Sun, 31 Feb 1994 08:50:07 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:50:07 GMT trailing",
        "Sunday, 06-Nov-1994 08:50:07 GMT", "Sun Nov 6 08:50:07 1994", "Sun Nov  6 08:50:07 1994 GMT",
    ])
    func refused(_ value: String) {
        #expect(Self.seconds(value) == nil, "\(value)")
    }

    @Test("no header, no wait")
    func absent() {
        #expect(Self.seconds(nil) == nil)
        #expect(Self.seconds(String(repeating: "9", count: 100)) == nil)
    }
}
