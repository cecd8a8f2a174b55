import BridgetCore
import Hummingbird
import Prometheus

/// Counts requests and times them into the server's own Prometheus registry (no process-wide metrics system, so
/// two servers, or a test's, keep theirs apart): `hb_requests` and the `http_server_request_duration` histogram,
/// by route, method and status, as `/metrics` shows them.
package struct RequestMetrics<Context: RequestContext>: RouterMiddleware {
    private struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private final class Meters: Sendable {
        let registry: PrometheusCollectorRegistry
        let byKey = Locked<[Key: (Counter, DurationHistogram)]>([:])

        init(registry: PrometheusCollectorRegistry) { self.registry = registry }

        func meters(_ key: Key) -> (Counter, DurationHistogram) {
            byKey.withLock { byKey in
                if let found = byKey[key] { return found }
                let labels = [("http_route", key.route), ("http_request_method", key.method),
                              ("http_response_status_code", String(key.status))]
                let made = (registry.makeCounter(descriptor: RequestMetrics.requests, labels: labels),
                            registry.makeDurationHistogram(descriptor: RequestMetrics.duration, labels: labels,
                                                           buckets: RequestMetrics.buckets))
                byKey[key] = made
                return made
            }
        }
    }

    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "hb_requests", unitName: "", helpText: "Requests answered, by route, method and status.")
    }

    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "http_server_request_duration", unitName: "",
                             helpText: "Time to answer a request, by route, method and status.")
    }

    static var buckets: [Duration] {
        [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
         .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
         .seconds(10)]
    }

    private let meters: Meters

    package init(registry: PrometheusCollectorRegistry) { meters = Meters(registry: registry) }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let key = Key(route: context.endpointPath ?? "NotFound", method: request.method.rawValue,
                      status: Int(response.status.code))
        let (counter, histogram) = meters.meters(key)
        counter.increment()
        histogram.record(ContinuousClock.now - started)
        return response
    }
}
