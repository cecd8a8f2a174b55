import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's, the connection's remote address (what the stream's per-address cap
/// counts; `nil` where there is no socket, as in the in-process tests) and its closing.
package struct WebRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?
    /// Completes when the connection closes (the client left): a stream stops waiting for changes then.
    package let connectionClosed: EventLoopFuture<Void>

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
    }

    /// The remote address's IP, without its port.
    package var remoteIP: String? { remoteAddress?.ipAddress }
}
