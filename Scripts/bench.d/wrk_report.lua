-- wrk's closing report as one JSON line (after wrk's own), for Scripts/bench.d/serve to read:
-- requests/s over the run, latency percentiles in milliseconds, and the errors wrk counts
-- (connect/read/write/timeout are socket errors; status counts answers of 400 and above).
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.2f, "p99_ms": %.2f, "max_ms": %.2f, '
      .. '"bytes": %d, "connect": %d, "read": %d, "write": %d, "timeout": %d, "status": %d}\n',
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, summary.bytes, e.connect, e.read, e.write, e.timeout,
    e.status))
end
