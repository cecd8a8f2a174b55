import BridgetApp
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Guards a connection before its requests reach the router:
///
/// - a request's head must arrive within `headTimeout` of the connection opening or of the previous answer (checked
///   four times a timeout, so it is dropped within 1.25 of it): a client that opens a connection and says nothing, or
///   sends its head a byte at a time, is dropped, so idle connections cannot hold the server's slots
///   (`serve.max_connections`) for long;
/// - a request HTTP's own parser refuses (a head over the size limit, bytes that are not HTTP) is answered as every
///   error is: an RFC 9457 problem with an `X-Request-Id` and a log line, not the parser's bare 400.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let logger: Logger
    /// Looks, a few times a timeout, whether a head is overdue: one timer a connection, not one a request.
    private var timer: RepeatedTask?
    /// Since when the connection waits for a request's head (its opening, or the last answer's end); `nil` while a
    /// request is being read or answered.
    private var waitingSince: NIODeadline?
    /// A request's head was read and its answer has not ended.
    private var inFlight = false
    /// This guard answered the connection's last request itself, and closes it.
    private var closing = false

    init(headTimeout: TimeAmount, logger: Logger) {
        self.headTimeout = headTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        waitingSince = .now()
        let channel = context.channel
        let logger = self.logger
        let timeout = headTimeout
        let check = TimeAmount.nanoseconds(max(timeout.nanoseconds / 4, 1_000_000))
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: check, delay: check) { _ in
            guard let since = loopBound.value.waitingSince, NIODeadline.now() - since >= timeout else { return }
            logger.debug("no request head within \(Double(timeout.nanoseconds) / 1e9) s: closing the connection")
            loopBound.value.disarm()
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        if case .head = unwrapInboundIn(data) {
            inFlight = true
            waitingSince = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inFlight = false
            waitingSince = .now() // the next request's head must come in time too
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Between requests, an error is the next request failing to parse: answer it. Mid-answer, pass it on.
        guard !inFlight, !closing, error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        closing = true
        disarm()
        let id = RequestID.make()
        let detail = switch error as? HTTPParserError {
        case .headerOverflow?: "the request line and headers are over the server's limit (80 kB)"
        case .invalidURL?: "the request's target is not a URL"
        case .invalidMethod?: "the request's method is not a method"
        default: "the request is not HTTP/1.1 this server can read"
        }
        logger.info("- - 400 (not parsed: \(error))", metadata: ["request": .string(id)])
        let body = ByteBuffer(string: (try? AnswerJSON.text(Problem.Body(
            type: "https://bridget.dev/problems/bad-request", title: "The request cannot be read", status: 400,
            detail: detail))).map { $0 + "\n" } ?? "{}\n")
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .contentType: "application/problem+json", .contentLength: String(body.readableBytes),
            .connection: "close", .requestID: id,
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
        waitingSince = nil
    }
}
