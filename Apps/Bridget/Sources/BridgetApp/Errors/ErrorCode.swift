/// Every error code of the app's own (the packages' errors carry theirs): what `BridgetError` and the web's
/// problems are thrown with, and what `ErrorTable` keys its rows by. `ErrorTableTests` fails when a code has no row
/// or a row no code.
///
/// The prefix says the kind: `config.` the configuration, `input.` a value the user gave, `data.` a file or the
/// store's contents, `alert.` a delivery, `serve.` the server's socket, `web.` an HTTP request
/// (its parameter, body, credentials), `processing.` a computation.
package enum ErrorCode: String, CaseIterable, Sendable, Codable {
    case alertGone = "alert.gone"
    case alertUndelivered = "alert.undelivered"
    case configBaseURL = "config.base-url"
    case configCachePolicy = "config.cache-policy"
    case configDuplicateKey = "config.duplicate-key"
    case configFileNotFound = "config.file-not-found"
    case configInsecureToken = "config.insecure-token"
    case configInvalid = "config.invalid"
    case configMalformedYAML = "config.malformed-yaml"
    case configNDWSource = "config.ndw-source"
    case configNotUTF8 = "config.not-utf8"
    case configPageSize = "config.page-size"
    case configPostgresSettings = "config.postgres-settings"
    case configPostgresUnavailable = "config.postgres-unavailable"
    case configPostgresURL = "config.postgres-url"
    case configStateURL = "config.state-url"
    case configStoreSource = "config.store-source"
    case configUnreadable = "config.unreadable"
    case dataExportOpen = "data.export-open"
    case dataExportWrite = "data.export-write"
    case dataImportOpen = "data.import-open"
    case dataImportRead = "data.import-read"
    case dataImportSyntax = "data.import-syntax"
    case dataRejectsPath = "data.rejects-path"
    case dataRejectsWrite = "data.rejects-write"
    case dataReportForeign = "data.report-foreign"
    case dataReportWrite = "data.report-write"
    case dataRoutesFile = "data.routes-file"
    case dataRoutesRead = "data.routes-read"
    case dataRoutesWrite = "data.routes-write"
    case dataRulesFile = "data.rules-file"
    case dataRulesOpen = "data.rules-open"
    case dataRulesRead = "data.rules-read"
    case dataRulesWrite = "data.rules-write"
    case dataStoreEmpty = "data.store-empty"
    case inputAlertDeparture = "input.alert-departure"
    case inputAlertDestination = "input.alert-destination"
    case inputAlertForecastRoute = "input.alert-forecast-route"
    case inputAlertLimit = "input.alert-limit"
    case inputAlertName = "input.alert-name"
    case inputAlertNoBridges = "input.alert-no-bridges"
    case inputAlertSecret = "input.alert-secret"
    case inputAlertSecretEnv = "input.alert-secret-env"
    case inputAlertThreshold = "input.alert-threshold"
    case inputAlertTrigger = "input.alert-trigger"
    case inputAlertWindow = "input.alert-window"
    case inputBadCrossing = "input.bad-crossing"
    case inputBadDays = "input.bad-days"
    case inputBadDuration = "input.bad-duration"
    case inputBadOrder = "input.bad-order"
    case inputBadRange = "input.bad-range"
    case inputBadTime = "input.bad-time"
    case inputEmptyRouteName = "input.empty-route-name"
    case inputImportFormat = "input.import-format"
    case inputInvalidRule = "input.invalid-rule"
    case inputNoCrossing = "input.no-crossing"
    case inputNoHistory = "input.no-history"
    case inputRejectsPath = "input.rejects-path"
    case inputSameRoute = "input.same-route"
    case inputServeHost = "input.serve-host"
    case inputUnknownAlert = "input.unknown-alert"
    case inputUnknownBridge = "input.unknown-bridge"
    case inputUnknownRoute = "input.unknown-route"
    case inputUnknownRule = "input.unknown-rule"
    case processingTimeZone = "processing.time-zone"
    case serveListen = "serve.listen"
    case serveMissing = "serve.missing"
    case webBadParameter = "web.bad-parameter"
    case webBadPath = "web.bad-path"
    case webBadBody = "web.bad-body"
    case webPayloadTooLarge = "web.payload-too-large"
    case webOverLimit = "web.over-limit"
    case webTooManyRoutes = "web.too-many-routes"
    case webTooManyAlerts = "web.too-many-alerts"
    case webIncompleteBody = "web.incomplete-body"
    case webRequestTimeout = "web.request-timeout"
    case webForbidden = "web.forbidden"
    case webUnauthorized = "web.unauthorized"
    case webStreamFull = "web.stream-full"
    case webShuttingDown = "web.shutting-down"
    case webNotFound = "web.not-found"
    case webMethodNotAllowed = "web.method-not-allowed"
    case webStoreUnavailable = "web.store-unavailable"
    case webBadRequest = "web.bad-request"

    /// The broad kind of failure, from the code's prefix.
    package var category: BridgetError.Category {
        switch rawValue.prefix(while: { $0 != "." }) {
        case "config": .configuration
        case "input", "web": .validation
        case "data": .data
        case "processing": .processing
        default: .network // alert., serve.
        }
    }
}
