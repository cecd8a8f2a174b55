// The HTTP server, with the `Server` trait (Hummingbird is SwiftNIO, minutes to build cold, so the plain build stays
// quick): without it, `bridget serve` says how to get it.
#if Server
import BridgetRuntime
import BridgetWeb

let serverPart: (any ServerPart)? = WebServer()
#else
import BridgetRuntime

let serverPart: (any ServerPart)? = nil
#endif
