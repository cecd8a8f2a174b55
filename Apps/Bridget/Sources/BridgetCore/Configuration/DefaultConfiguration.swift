/// The default configuration, embedded so `bridget` works from any folder with no file at all.
///
/// It is the text of `Config/bridget.yaml`, byte for byte; a test fails if the two drift apart.
package enum DefaultConfiguration {
    /// How `config show` names this source.
    package static let origin = "(embedded default)"

    /// The YAML text.
    package static let yaml = """
# Bridget's default configuration: synthetic sample data, serial analysis, a local SQLite file.
# Works offline. Any key can be overridden by an environment variable named BRIDGET_ followed by its path
# in capitals with underscores, e.g. BRIDGET_STORE_PATH=/tmp/b.sqlite or BRIDGET_PROVIDER_SAMPLE_SEED=7.
# `bridget config show` prints every key with its value and where the value came from.

provider:
  kind: sample              # sample (synthetic) | live (the Socrata API) | cached (what live fetched) | ndw (NL)
  sample:
    seed: 42                # the same seed and days give identical rows
    days: 365               # days of history, ending with end_date
    end_date: null          # YYYY-MM-DD (Seattle); null means yesterday
    invalid_rate: 0.002     # share of openings written as a row that breaks a validation rule
    page_size: 5000         # rows per page
    rate_scale: 1           # multiplies every bridge's opening rate (a busier city, for benchmarks)
  live:                     # see Docs/LIVE.md
    base_url: https://data.seattle.gov
    dataset: gm8h-9449      # SDOT Drawbridge Status
    page_size: 5000         # rows per request; must fit max_page_bytes
    timeout_seconds: 30
    max_page_bytes: 5000000
    app_token_env: BRIDGET_APP_TOKEN   # the variable holding your app token (never written anywhere)
    retry_max_attempts: 5
    retry_base_delay_seconds: 1        # doubles each retry, with jitter
    retry_max_delay_seconds: 30        # Retry-After is honoured up to this
    state_url: https://web.seattle.gov/Travelers/api/Map/GetBridgeData   # live bridge state; null: off
    state_poll_seconds: 20             # polls of state_url by watch and serve (jittered)
  ndw:                      # the Netherlands' bridge openings (DATEX II); see Docs/ARCHITECTURE.md
    source: https://opendata.ndw.nu/brugopeningen.xml.gz   # or a file (.xml.gz), relative to this file's folder
    timeout_seconds: 30
    max_bytes: 64000000     # a larger feed (downloaded or unzipped) is refused

processor:
  kind: serial              # serial | parallel (same answers, spread over the cores)

store:
  kind: sqlite              # sqlite | memory | postgres (a shared server; bridget built with the Postgres trait)
  path: null                # null means $XDG_DATA_HOME/bridget/bridget.sqlite (~/.local/share/bridget/...)
  postgres:                 # for kind: postgres (see Docs/DEPLOY.md)
    url: null               # postgres://USER@HOST:PORT/DATABASE; never a password
    password_env: PGPASSWORD  # the variable holding the role's password (never written anywhere)
    sslmode: prefer         # disable | prefer | require | verify-full (checks the certificate)
    schema: public          # the schema Bridget's tables live in
    pool_size: 8            # connections each bridget process keeps at most
    connect_timeout_seconds: 10
    statement_timeout_seconds: 0  # the server cancels a longer statement; 0 for no limit

routes:                     # saved routes
  storage: auto             # file | store | auto (the store when it is PostgreSQL, which several hosts share; else the file)
  path: null                # the file: null means $XDG_CONFIG_HOME/bridget/routes.yaml (~/.config/bridget/routes.yaml)

rules:                      # dated deviations (a bridge kept closed for an event): `bridget rules`, Docs/FORECASTS.md
  storage: auto             # file | store | auto (the store when it is PostgreSQL, which several hosts share; else the file)
  path: null                # the file: null means $XDG_CONFIG_HOME/bridget/rules.yaml (~/.config/bridget/rules.yaml)

cache:                      # HTTP responses of the live provider (the cached provider serves them)
  path: null                # null means $XDG_CACHE_HOME/bridget/http (~/.cache/bridget/http)
  max_bytes: 200000000      # size budget; the oldest entries go first
  policy: network-first     # network-first | cache-first | cache-only | stale-if-error
  max_age_minutes: 60       # how long cache-first trusts a cached response

sync:
  batch_size: 5000          # events written per transaction
  overlap_hours: 48         # an incremental sync re-reads this much before the newest stored opening
  rejects_path: null        # append every rejected row to this NDJSON file (as --rejects does)

import:
  batch_size: null          # rows validated and written per transaction (and per checkpoint) by `bridget import`;
                            # null: the store's (10,000 for SQLite, 25,000 for PostgreSQL)
  rejects_path: null        # append every rejected row to this NDJSON file (as --rejects does)

analysis:
  merge_gap_minutes: 2      # rows of one bridge closer than this are one physical opening (0: no merging)

validation:
  max_distance_meters: 1000 # rows whose coordinates lie farther from their bridge are rejected

serve:                      # `bridget serve`, the HTTP API (a bridget built with the Server trait); see Docs/DEPLOY.md
  host: 127.0.0.1
  port: 8080                # 0 picks a free port (printed at start)
  token_env: BRIDGET_API_TOKEN   # the variable holding the bearer token PUT and DELETE need (unset: writes answer 403)
  drain_seconds: 10         # on SIGTERM or SIGHUP, requests in flight and a running sync's batch get this long to finish
  max_body_bytes: 65536     # a larger request body is answered 413
  max_connections: 4096     # open at once; more wait to be accepted (the open-file limit must allow them)
  idle_timeout_seconds: 60  # a connection with no request for this long is closed
  header_timeout_seconds: 10  # a request whose head has not arrived this long after it began is dropped
  body_timeout_seconds: 10  # a request body not received in this long is answered 408
  store_timeout_seconds: 3  # a store that does not answer a request's read in this long is answered 503
  answer_cache_mb: 16       # encoded answers kept in memory, least recently used out first
  cors:                     # which web pages on other origins may use the API from a browser (Docs/DEPLOY.md)
    allowed_origins: "*"    # may read (GET, HEAD, the stream): "*" for any, or a list such as ["https://app.example"]
    write_origins: []       # may also write (PUT, DELETE, with the token): each listed, never "*"
    max_age_seconds: 600    # how long a browser keeps a preflight's answer

refresh:                    # syncs on a schedule, inside `bridget serve` or alone as `bridget watch`
  enabled: auto             # auto (on for live and ndw, off for sample and cached) | true | false
  times: ["05:30", "17:30"] # local times of the provider's zone (Seattle for live), twice a day
  every: null               # e.g. 30m or 6h: sync this often instead of at times
  jitter_minutes: 10        # a random delay up to this is added to each scheduled time
  backoff_initial_seconds: 60    # after a failed sync, retry after this long, doubling each time
  backoff_max_seconds: 3600      # ... up to this

changes:                    # the change log each write of openings appends to: the stream, events --follow, alerts
  keep_days: 7              # `bridget prune` and the refresher remove changes older than this (the newest stays)

status:
  soon_minutes: 30          # a planned opening within this many minutes is "opening soon"

stream:                     # GET /v1/stream, Server-Sent Events of the change log
  heartbeat_seconds: 15     # a comment this often keeps proxies from closing a quiet stream
  poll_ms: 100              # how often the server reads the log when no commit woke it
  client_buffer: 1000       # changes queued for one client; past it the client reads what it missed from the store
  stall_seconds: 10         # a client whose connection takes nothing sent this long is dropped (with a retry hint
                            # when it can still be written to)
  max_clients: 1000         # stream clients at once, below serve.max_connections (left unset: also at most half of
                            # them); more are refused with 503
  max_clients_per_address: 16    # stream clients at once from one remote address
  memory_mb: 32             # events queued to all stream clients together; a client past it reads from the store

alerts:                     # messages to webhooks and ntfy topics (`bridget alert`), sent by serve and watch
  retry_hours: 24           # a message not delivered within this is given up (expired)
  timeout_seconds: 10       # one delivery attempt's deadline
  backoff_initial_seconds: 30    # after a failed attempt, retry after this long, doubling each time
  backoff_max_seconds: 1800      # ... up to this (a receiver's Retry-After is honoured)
  allow_private: false      # allow destinations at loopback, private or link-local addresses, and plain http to them
                            # (special-purpose addresses such as documentation or NAT64 ranges are never allowed)
  keep_days: 7              # delivered, gone and expired messages and their attempts are removed after this
  max_alerts: 1000          # the most alerts the store keeps
  secrets_file: null        # a file of BRIDGET_ALERT_SECRET_<NAME>=secret lines; webhook secrets come only from
                            # variables named BRIDGET_ALERT_SECRET_<NAME>, here or in the environment

pages:                      # the served and written pages
  tiles_url: null           # a basemap under the map, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png (mind the
                            # server's usage policy); null draws the waterways the bridges cross instead
  tiles_attribution: ""     # what the tile server asks pages to show, e.g. "© OpenStreetMap contributors"

"""
}
