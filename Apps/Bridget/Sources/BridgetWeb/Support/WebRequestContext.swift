import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's, and the connection's remote address (what the stream's per-address
/// cap counts; `nil` where there is no socket, as in the in-process tests).
package struct WebRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The remote address's IP, without its port.
    package var remoteIP: String? { remoteAddress?.ipAddress }
}
