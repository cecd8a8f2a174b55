import BridgetNetworking
import Foundation
import Testing

/// Feed errors carry facts and a stable code, and say nothing of an application's settings or commands.
@Suite("FeedError")
struct FeedErrorTests {
    @Test("each case says what happened, with its URL or file, in one sentence")
    func sentences() {
        let url = "https://data.seattle.gov/resource/gm8h-9449.json"
        #expect(FeedError.httpStatus(url: url, status: 404, reason: "not found", serverMessage: "no such dataset",
                                     retryAfter: nil).description == "\(url) answered 404 not found: no such dataset")
        #expect(FeedError.wrongContentType(url: url, contentType: "text/html", serverMessage: nil).description
            == "\(url) answered 200 with Content-Type 'text/html', not JSON: (empty body)")
        #expect(FeedError.tooLarge(url: url, limit: 10, declaredLength: 20).description
            == "\(url) declared a body of 20 bytes, over the limit of 10 bytes")
        #expect(FeedError.malformedBody(url: url, problem: .notJSON(bytes: 7)).description
            == "\(url) sent a body that is not valid JSON (7 bytes)")
        #expect(FeedError.pagingIncomplete(resource: url, reached: 0, expected: 300, emptyPage: url + "?p", times: 4)
            .description == "paging \(url) reached 0 rows, but the server counts 300 in the range; \(url)?p was empty 4 times")
        #expect(FeedError.feedFileTooLarge(path: "/f.xml.gz", size: 20, limit: 10).description
            == "the NDW feed file /f.xml.gz has 20 bytes, over the limit of 10 bytes")
        let refusal = HTTPRedirectRefused(from: URL(string: url)!, to: URL(string: "http://169.254.169.254/latest")!,
                                          reason: .specialPurpose(address: "169.254.169.254", block: "link-local"))
        #expect(FeedError.redirectRefused(url: url, refusal: refusal).description
            == "\(url): https://data.seattle.gov redirected to http://169.254.169.254, which is 169.254.169.254, "
            + "a special-purpose address (link-local) that a redirect may not lead to")
    }

    @Test("a gave-up error names its attempts and its last failure, and carries that failure's code")
    func gaveUp() {
        let last = FeedError.httpStatus(url: "u", status: 503, reason: "service unavailable", serverMessage: nil,
                                        retryAfter: 5)
        let error = FeedError.gaveUp(url: "u", attempts: 3, last: last)
        #expect(error.code == "network.http-503")
        #expect(error.description == "gave up on u after 3 attempts; last: u answered 503 service unavailable")
        #expect(FeedError.gaveUp(url: "u", attempts: 2, last: nil).code == "network.gave-up")
        #expect(last.retryAfter == 5 && error.retryAfter == nil)
    }

    @Test("codes are stable and documented: an empty and a garbled body share one")
    func codes() {
        #expect(FeedError.emptyBody(url: "u").code == "network.malformed-body")
        #expect(FeedError.malformedBody(url: "u", problem: .notRowCount).code == "network.malformed-body")
        #expect(FeedError.timeout(url: "u").code == "network.timeout")
        #expect(FeedError.nothingCached(folder: "/c", dataset: "d").code == "network.nothing-cached")
        #expect(FeedError.invalidDatasetID("x").code == "network.invalid-dataset")
        let refusal = HTTPRedirectRefused(from: URL(string: "https://a.example")!, to: URL(string: "https://b.example")!,
                                          reason: .leavesOrigin)
        #expect(FeedError.redirectRefused(url: "u", refusal: refusal).code == "network.redirect-refused")
    }
}
