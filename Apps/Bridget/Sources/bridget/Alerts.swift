// Alert delivery, with the `Alerts` trait (swift-crypto's signatures and async-http-client): without it, alert
// messages wait in the store's outbox for a serve or watch built with it.
#if Alerts
import BridgetRuntime
import BridgetAlerts

let alertsPart: (any AlertDeliveryPart)? = AlertDelivery()
#else
import BridgetRuntime

let alertsPart: (any AlertDeliveryPart)? = nil
#endif
