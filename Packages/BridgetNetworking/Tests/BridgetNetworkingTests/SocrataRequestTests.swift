import BridgetDTOs
import BridgetNetworking
import Foundation
import Testing

@Suite("Socrata requests, retries and error bodies")
struct SocrataRequestTests {
    let query = try! SocrataQuery(baseURL: URL(string: "https://data.seattle.gov/")!, dataset: "gm8h-9449")

    @Test("page URLs order totally, page with limit/offset, and encode every value")
    func pageURL() throws {
        let since = try #require(FloatingTimestamp("2026-09-01T00:00:00.000"))
        let url = query.pageURL(since: since, limit: 5000, offset: 10000).absoluteString
        #expect(url == "https://data.seattle.gov/resource/gm8h-9449.json?"
            + "$where=opendatetime%20%3E%3D%20%272026-09-01T00%3A00%3A00.000%27"
            + "&$order=opendatetime%2C%3Aid&$limit=5000&$offset=10000")
        let components = try #require(URLComponents(string: url))
        #expect(components.queryItems?.first { $0.name == "$where" }?.value == "opendatetime >= '2026-09-01T00:00:00.000'")
        #expect(query.pageURL(since: nil, limit: 10, offset: 0).absoluteString.contains("$where") == false)
    }

    @Test func soqlLiteralsAndEncoding() {
        #expect(SocrataQuery.literal("O'Brien's") == "'O''Brien''s'")
        #expect(SocrataQuery.encode("a&b=c+d 'e'/é") == "a%26b%3Dc%2Bd%20%27e%27%2F%C3%A9")
    }

    @Test func changeCheckURL() {
        let url = query.changeCheckURL
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map(\.name) == ["$select"])
        #expect(items.first?.value == "count(*) AS n, max(opendatetime) AS latest")
    }

    @Test func rejectsMalformedDatasetAndBaseURL() {
        #expect(throws: FeedError.invalidDatasetID("gm8h9449")) {
            try SocrataQuery(baseURL: URL(string: "https://x.org")!, dataset: "gm8h9449")
        }
        #expect(throws: FeedError.invalidBaseURL("ftp://x.org")) {
            try SocrataQuery(baseURL: URL(string: "ftp://x.org")!, dataset: "gm8h-9449")
        }
    }

    @Test("backoff doubles, is capped, and jitters within its share")
    func backoff() {
        let policy = RetryPolicy(maxAttempts: 6, baseDelay: 1, maxDelay: 10, jitter: 0.5)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, random: 1) == 1)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 1) == 4)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, random: 0) == 2)
        #expect(policy.delay(afterAttempt: 10, retryAfter: nil, random: 1) == 10)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 7, random: 0.3) == 7)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 600, random: 0.3) == 10)
    }

    @Test("the server's message is read from every error-body shape")
    func errorBodies() {
        func message(_ text: String) -> String? { SocrataErrorBody.message(from: Data(text.utf8)) }
        #expect(message(#"{"code":"query.compiler.malformed","error":true,"message":"Bad $where","data":{}}"#)
                == "Bad $where (query.compiler.malformed)")
        #expect(message(#"{"message":"No such column: foo","errorCode":"query.soql.no-such-column","data":{}}"#)
                == "No such column: foo (query.soql.no-such-column)")
        #expect(message(#"{"message":"You must be logged in to access this resource","error":true}"#)
                == "You must be logged in to access this resource")
        #expect(message("<html><body><h1>503 Service Unavailable</h1></body></html>") == "503 Service Unavailable")
        #expect(message("") == nil)
        // A binary body (a gzip file answered where JSON was asked for) is described, not dumped.
        let gzip = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]) + Data(repeating: 0xAB, count: 90)
        #expect(SocrataErrorBody.message(from: gzip) == "(100 bytes of binary data)")
        #expect(message("line one\r\n\tline two") == "line one line two") // ordinary whitespace is text
    }
}
