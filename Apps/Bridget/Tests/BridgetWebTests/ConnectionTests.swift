import BridgetCore
import BridgetTestSupport
import BridgetWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// What one client can hold and send, over real sockets to the server as `bridget serve` builds it: connections
/// that say nothing, heads and bodies that never end, bytes HTTP's parser refuses, a hang-up mid-body.
@Suite("connections and requests a client should not be able to hold, over sockets")
struct ConnectionTests {
    static let request = "GET /healthz HTTP/1.1\r\nHost: bridget\r\n\r\n"

    @Test("a connection that sends no request head in time is closed: silent, half a head, or idle after an answer")
    func headTimeout() async throws {
        let fixture = try await WebFixture.make(days: 2, environment: ["BRIDGET_SERVE_HEADER_TIMEOUT_SECONDS": "1"])
        defer { fixture.remove() }
        try await fixture.withServer { port in
            let silent = try RawConnection(port: port)
            let nothing = await silent.receiveUntilClosed()
            #expect(nothing.closed && nothing.data.isEmpty, "a silent connection was kept")

            let half = try RawConnection(port: port)
            half.send("GET /healthz HTTP/1.1\r\nHost: bri")
            let cut = await half.receiveUntilClosed()
            #expect(cut.closed && cut.data.isEmpty, "half a head held the connection")

            let kept = try RawConnection(port: port)
            kept.send(Self.request)
            let answered = await kept.receiveResponse()
            #expect(answered?.status == 200)
            let after = await kept.receiveUntilClosed()
            #expect(after.closed && after.data.isEmpty, "an idle kept-alive connection was kept")
        }
    }

    @Test("at serve.max_connections a further connection waits, unanswered, until one closes; then it is answered")
    func connectionCap() async throws {
        let fixture = try await WebFixture.make(days: 2, environment: ["BRIDGET_SERVE_MAX_CONNECTIONS": "2"])
        defer { fixture.remove() }
        try await fixture.withServer { port in
            let first = try RawConnection(port: port)
            let second = try RawConnection(port: port)
            for connection in [first, second] { // both accepted and answered, and kept open
                connection.send(Self.request)
                #expect(await connection.receiveResponse()?.status == 200)
            }
            let third = try RawConnection(port: port)
            third.send(Self.request)
            // Nothing in a second: a slow machine only makes this surer, never wrong.
            #expect(await !third.hasNews(within: 1_000), "a third connection was answered with two open")
            first.hangUp()
            #expect(await third.receiveResponse()?.status == 200, "the third connection was not answered once one closed")
        }
    }

    @Test("what HTTP's parser refuses is a 400 problem with an X-Request-Id, logged; then the connection closes")
    func parserRejections() async throws {
        let fixture = try await WebFixture.make(days: 2)
        defer { fixture.remove() }
        let lines = LogLines()
        let logger = Logger(label: "bridget.test") { _ in lines }
        let long = String(repeating: "a", count: 90_000)
        let requests: [(String, [UInt8])] = [
            ("a header over the limit", Array("GET /v1/bridges HTTP/1.1\r\nHost: b\r\nX-Long: \(long)\r\n\r\n".utf8)),
            ("a target over the limit", Array("GET /v1/bridges?\(long) HTTP/1.1\r\nHost: b\r\n\r\n".utf8)),
            ("raw bytes in the target", Array("GET /v1/bridges/".utf8) + [0xFF, 0xFE, 0x01] + Array(" HTTP/1.1\r\nHost: b\r\n\r\n".utf8)),
            ("no method", Array("BREW /v1/bridges HTTP/1.1\r\nHost: b\r\n\r\n".utf8)),
            ("not HTTP", Array("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\r\n\r\n".utf8)),
        ]
        try await fixture.withServer(logger: logger) { port in
            for (what, bytes) in requests {
                let connection = try RawConnection(port: port)
                connection.send(bytes)
                let response = try #require(await connection.receiveResponse(), "\(what): no answer")
                #expect(response.status == 400, "\(what): \(response.status)")
                #expect(response.headers["content-type"] == "application/problem+json", "\(what): \(response.headers)")
                let id = try #require(response.headers["x-request-id"], "\(what): no X-Request-Id")
                #expect(response.body.contains("\"status\" : 400") && response.body.contains("bad-request"),
                        "\(what): \(response.body)")
                #expect(lines.all.contains { $0.contains("400") && $0.contains("request=\(id)") }, "\(what) was not logged")
                #expect(await connection.receiveUntilClosed().closed)
            }
            // The server still answers.
            let after = try RawConnection(port: port)
            after.send(Self.request)
            #expect(await after.receiveResponse()?.status == 200)
        }
    }

    @Test("a client that hangs up mid-body is a 400 in the log and the metrics, not a 5xx")
    func abortedBody() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(days: 2, environment: [
            "BRIDGET_API_TOKEN": token, "BRIDGET_SERVE_BODY_TIMEOUT_SECONDS": "600",
        ])
        defer { fixture.remove() }
        let lines = LogLines()
        let logger = Logger(label: "bridget.test") { _ in lines }
        try await fixture.withServer(logger: logger) { port in
            let client = try RawConnection(port: port)
            client.sendUnfinishedPut("/v1/routes/commute", token: token)
            client.hangUp()
            // The log line comes when the server notices (at once; the loop is a hang detector, not a timing).
            let until = ContinuousClock.now + TestTime.duration(.seconds(120))
            while !lines.all.contains(where: { $0.contains("PUT /v1/routes/commute") }), ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(50))
            }
            let line = try #require(lines.all.first { $0.contains("PUT /v1/routes/commute") }, "no log line")
            #expect(line.contains("PUT /v1/routes/commute 400") && line.contains("incomplete-body"), "\(line)")
            let metrics = try RawConnection(port: port)
            metrics.send("GET /metrics HTTP/1.1\r\nHost: b\r\n\r\n")
            let text = try #require(await metrics.receiveResponse()).body
            #expect(text.contains(#"http_request_method="PUT",http_response_status_code="400"} 1"#), "\(text)")
            #expect(!text.contains(#"http_response_status_code="5"#), "a 5xx was counted: \(text)")
        }
        #expect(!lines.all.joined().contains(token))
    }

    @Test("a body that stops coming is answered 408 after serve.body_timeout_seconds, and the connection closed")
    func stalledBody() async throws {
        let token = "tok-\(UUID().uuidString)"
        let fixture = try await WebFixture.make(days: 2, environment: [
            "BRIDGET_API_TOKEN": token, "BRIDGET_SERVE_BODY_TIMEOUT_SECONDS": "1",
        ])
        defer { fixture.remove() }
        try await fixture.withServer { port in
            let client = try RawConnection(port: port)
            client.sendUnfinishedPut("/v1/routes/commute", token: token)
            let response = try #require(await client.receiveResponse())
            #expect(response.status == 408 && response.body.contains("request-timeout")
                    && response.body.contains("serve.body_timeout_seconds"), "\(response.status) \(response.body)")
            #expect(await client.receiveUntilClosed().closed)
        }
    }

    @Test("HEAD is answered as GET is, without the body (RFC 9110): the API, the pages, health")
    func head() async throws {
        let fixture = try await WebFixture.make(days: 7)
        defer { fixture.remove() }
        try await fixture.withClient { client in
            for path in ["/v1/bridges", "/v1/bridges/3/events?limit=5", "/v1/stats", "/healthz", "/", "/bridges/3"] {
                let get = try await client.execute(uri: path, method: .get)
                let head = try await client.execute(uri: path, method: .head)
                #expect(head.status == get.status && get.status == .ok, "\(path): \(head.status)")
                #expect(head.body.readableBytes == 0, "\(path): HEAD has a body")
                #expect(head.header("Content-Type") == get.header("Content-Type"), "\(path)")
                #expect(head.header("ETag") == get.header("ETag"), "\(path)")
            }
            let unknown = try await client.execute(uri: "/v1/bridges/99", method: .head)
            #expect(unknown.status == .notFound && unknown.body.readableBytes == 0)
        }
    }
}
