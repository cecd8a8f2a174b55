import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP POST of a message and what came back.
package protocol AlertTransport: Sendable {
    /// Posts `body` to `url` with `headers`, giving up after `timeout`; the status and headers (names lower case).
    func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) async throws
        -> (status: Int, headers: [String: String])
}

/// Posts with URLSession, following no redirect (a redirect could lead to an address the policy refuses): a 3xx is
/// the answer.
package final class URLSessionAlertTransport: NSObject, AlertTransport, URLSessionTaskDelegate, @unchecked Sendable {
    private lazy var session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()
    private let lock = NSLock()

    override package init() { super.init() }

    package func post(_ url: URL, headers: [String: String], body: Data, timeout: TimeInterval) async throws
        -> (status: Int, headers: [String: String])
    {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (session, sent) = (lock.withLock { self.session }, request)
        // The deadline is held here: URLSession on Linux lets a request whose server never answers wait for the
        // session's own 60 s, whatever the request's timeout says.
        return try await withThrowingTaskGroup(of: (status: Int, headers: [String: String])?.self) { group in
            group.addTask {
                let (_, response) = try await session.data(for: sent)
                guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                var fields: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    fields[String(describing: name).lowercased()] = String(describing: value)
                }
                return (http.statusCode, fields)
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else { throw URLError(.timedOut) }
            return answer
        }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
