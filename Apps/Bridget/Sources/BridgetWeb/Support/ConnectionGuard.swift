import BridgetCore
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
/// - a connection whose client takes nothing sent for `stallTimeout` (it stays unwritable: the socket does not drain)
///   is closed, so a client that never reads holds no more than the socket's buffers and NIO's high watermark of
///   memory, and only for that long (a stream's writer waits while the connection is unwritable, and its wait ends
///   with the close). An event stream's socket gets a small send buffer (`streamSendBuffer`): the kernel's own,
///   grown by autotuning to megabytes, would take a whole burst of changes for a client that reads nothing and hide
///   that it does not;
/// - a request HTTP's own parser refuses (a head over the size limit, bytes that are not HTTP) is answered as every
///   error is: an RFC 9457 problem with an `X-Request-Id` and a log line, not the parser's bare 400.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let stallTimeout: TimeAmount
    private let logger: Logger
    /// Since when the connection cannot take more (`nil` while it can).
    private var unwritableSince: NIODeadline?
    /// Looks, a few times a timeout, whether a head is overdue: one timer a connection, not one a request.
    private var timer: RepeatedTask?
    /// Since when the connection waits for a request's head (its opening, or the last answer's end); `nil` while a
    /// request is being read or answered.
    private var waitingSince: NIODeadline?
    /// A request's head was read and its answer has not ended.
    private var inFlight = false
    /// This guard answered the connection's last request itself, and closes it.
    private var closing = false

    init(headTimeout: TimeAmount, stallTimeout: TimeAmount, logger: Logger) {
        self.headTimeout = headTimeout
        self.stallTimeout = stallTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        waitingSince = .now()
        let channel = context.channel
        let logger = self.logger
        let (timeout, stall) = (headTimeout, stallTimeout)
        let check = TimeAmount.nanoseconds(max(min(timeout.nanoseconds, stall.nanoseconds) / 4, 1_000_000))
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: check, delay: check) { _ in
            let guarding = loopBound.value
            let now = NIODeadline.now()
            if let since = guarding.waitingSince, now - since >= timeout {
                logger.debug("no request head within \(Double(timeout.nanoseconds) / 1e9) s: closing the connection")
            } else if let since = guarding.unwritableSince, now - since >= stall {
                logger.info("the client took nothing sent for \(Double(stall.nanoseconds) / 1e9) s (stream.stall_seconds): closing the connection")
            } else {
                return
            }
            guarding.disarm()
            channel.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            unwritableSince = nil
        } else if unwritableSince == nil {
            unwritableSince = .now()
        }
        context.fireChannelWritabilityChanged()
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

    /// An event stream's socket send buffer, in bytes (the kernel doubles it for its bookkeeping).
    static let streamSendBuffer = 64 << 10

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data),
           head.headerFields[.contentType]?.hasPrefix("text/event-stream") == true {
            context.channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.streamSendBuffer)
                .whenFailure { [logger] error in logger.debug("a stream's send buffer was not set: \(error)") }
        }
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
        let problem = Problem(.webBadRequest, detail: detail)
        let body = ByteBuffer(string: problem.json)
        let head = HTTPResponse(status: problem.status, headerFields: [
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
        unwritableSince = nil
    }
}
