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
        let id = RequestID.make()
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
        var line = "\(request.method) \(request.uri.path) \(response.status.code) \(RequestID.tenths(milliseconds)) ms"
        if let problem { line += ": \(problem.type)" + (problem.logged.map { ": \($0)" } ?? "") }
        let level: Logger.Level = response.status.code >= 500 ? .error : .info
        context.logger.log(level: level, "\(line)", metadata: ["request": .string(id)])
        return response
    }
}

/// A request's id: a random (version 4) UUID in lowercase, from the system's generator (`getrandom`, where
/// Foundation's `UUID()` opens `/dev/urandom` each time).
enum RequestID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        for half in 0..<2 {
            let word = generator.next() as UInt64
            for index in 0..<8 { bytes[half * 8 + index] = UInt8(truncatingIfNeeded: word >> (8 * index)) }
        }
        bytes[6] = bytes[6] & 0x0F | 0x40 // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80 // the RFC 9562 variant
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `value` with one decimal (`12.3`), as `%.1f` writes it, without a formatter.
    static func tenths(_ value: Double) -> String {
        let tenths = Int((max(0, value) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`: the id of a request in the server's log.
    package static var requestID: Self { Self("X-Request-Id")! }
}
