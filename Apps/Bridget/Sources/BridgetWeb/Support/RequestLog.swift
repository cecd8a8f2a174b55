import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Gives every response an `X-Request-Id`, turns every error into a problem, and logs one line a request: what the
/// client asked and got, and for a problem the error as the operator needs it (paths, hosts: never to the client).
package struct RequestLog<Context: RequestContext>: RouterMiddleware {
    private let inFlight: RequestCount

    package init(inFlight: RequestCount = RequestCount()) { self.inFlight = inFlight }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        let id = UUID().uuidString.lowercased()
        inFlight.begin()
        defer { inFlight.end() }
        var response: Response
        var problem: Problem?
        do {
            response = try await next(request, context)
        } catch {
            let made = Problem.from(error)
            problem = made
            response = made.response
        }
        response.headers[.requestID] = id
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        var line = "\(request.method) \(request.uri.path) \(response.status.code) " + String(format: "%.1f ms", milliseconds)
        if let problem { line += ": \(problem.type)" + (problem.logged.map { ": \($0)" } ?? "") }
        let level: Logger.Level = response.status.code >= 500 ? .error : .info
        context.logger.log(level: level, "\(line)", metadata: ["request": .string(id)])
        return response
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the id of a request in the server's log.
    package static var requestID: Self { Self("X-Request-Id")! }
}
