import Foundation
import Synchronization

/// Seattle's live bridge state as the fixture server serves it at `StateFeedFixture.path`: the city's double-encoded
/// JSON (a JSON string holding the array), with each bridge's status set by a test or a drill, and the faults of a
/// city endpoint's bad day queued one poll each.
///
/// A drill sets it over HTTP: `POST /control/state?bridge=3&status=Open` (`Closed`, any other text, or `missing` to
/// leave the bridge out), `POST /control/state-fault?plan=html,503` (see `Fault(plan:)`), `GET /control/polls`.
public final class StateFeedFixture: Sendable {
    /// The path of the feed.
    public static let path = "/Travelers/api/Map/GetBridgeData"

    /// One poll's misbehaviour.
    public enum Fault: Sendable, Equatable {
        /// An HTTP status with an HTML body (429 with `Retry-After: 5`).
        case status(Int)
        /// A 200 with an HTML error page.
        case html
        /// A 200 with no body.
        case empty
        /// The array itself, not a string holding it.
        case singleEncoded
        /// A 200 whose body is not JSON.
        case malformed
        /// An extra item with an id no catalog has.
        case unknownBridge
        /// Bridge `id` with the status "Maintenance".
        case unknownStatus(String)
        /// Bridge `id` left out of the answer.
        case missing(String)
        /// No answer for this many seconds.
        case hang(Double)

        /// `503`, `429`, `html`, `empty`, `single`, `malformed`, `unknown-id`, `unknown-status:3`, `missing:3`,
        /// `hang:30`.
        public init?(plan: String) {
            let parts = plan.split(separator: ":", maxSplits: 1).map(String.init)
            switch parts[0] {
            case "html": self = .html
            case "empty": self = .empty
            case "single": self = .singleEncoded
            case "malformed": self = .malformed
            case "unknown-id": self = .unknownBridge
            case "unknown-status" where parts.count == 2: self = .unknownStatus(parts[1])
            case "missing" where parts.count == 2: self = .missing(parts[1])
            case "hang" where parts.count == 2: guard let seconds = Double(parts[1]) else { return nil }; self = .hang(seconds)
            default:
                guard let status = Int(parts[0]), (100...599).contains(status) else { return nil }
                self = .status(status)
            }
        }
    }

    private struct State {
        /// Bridge id → the `Status` text served; a bridge not here is left out.
        var statuses: [String: String]
        var faults: [Fault] = []
        var polls = 0
    }

    private let state: Mutex<State>

    /// The five bridges the city's feed is known to list, all lowered.
    public init(statuses: [String: String] = ["1": "Closed", "2": "Closed", "3": "Closed", "4": "Closed", "29": "Closed"]) {
        state = Mutex(State(statuses: statuses))
    }

    /// Sets bridge `id`'s status ("Open", "Closed"); `nil` leaves it out of the answers.
    public func set(_ id: String, _ status: String?) { state.withLock { $0.statuses[id] = status } }

    /// Queues faults, one poll each.
    public func inject(_ faults: [Fault]) { state.withLock { $0.faults += faults } }

    /// Polls answered so far.
    public var polls: Int { state.withLock { $0.polls } }

    /// Faults not yet served.
    public var pendingFaults: Int { state.withLock { $0.faults.count } }

    /// One poll's answer: status, headers and body.
    func answer() async -> (status: Int, headers: [String: String], body: Data) {
        let (statuses, fault) = state.withLock { state -> ([String: String], Fault?) in
            state.polls += 1
            return (state.statuses, state.faults.isEmpty ? nil : state.faults.removeFirst())
        }
        let names = ["1": "1st Ave South", "2": "Ballard", "3": "Fremont", "4": "Montlake", "6": "Lower Spokane St",
                     "21": "University", "29": "South Park"]
        var items: [[String: Any]] = statuses.keys.sorted { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }.map { id in
            let name = names[id] ?? "Bridge \(id)"
            return ["BridgeID": Int(id) ?? id, "DisplayName": name, "Latitude": 47.65, "Longitude": -122.35,
                    "Name": "Bridge_\(name.replacingOccurrences(of: " ", with: "")).Input01", "Status": statuses[id]!]
        }
        let html = Data("<!DOCTYPE html><html><body><h1>Server Error</h1></body></html>".utf8)
        switch fault {
        case .status(let code)?:
            return (code, ["Content-Type": "text/html"].merging(code == 429 ? ["Retry-After": "5"] : [:]) { a, _ in a }, html)
        case .html?: return (200, ["Content-Type": "text/html"], html)
        case .empty?: return (200, ["Content-Type": "application/json"], Data())
        case .malformed?: return (200, ["Content-Type": "application/json"], Data("{\"Message\":\"An error has".utf8))
        case .hang(let seconds)?: try? await Task.sleep(for: .seconds(seconds))
        case .unknownBridge?:
            items.append(["BridgeID": 77, "DisplayName": "Nowhere", "Name": "Bridge_Nowhere.Input01", "Status": "Open"])
        case .unknownStatus(let id)?:
            items = items.map { item in
                guard "\(item["BridgeID"]!)" == id else { return item }
                var changed = item
                changed["Status"] = "Maintenance"
                return changed
            }
        case .missing(let id)?: items.removeAll { "\($0["BridgeID"]!)" == id }
        case .singleEncoded?, nil: break
        }
        let array = (try? JSONSerialization.data(withJSONObject: items, options: [.sortedKeys])) ?? Data("[]".utf8)
        if fault == .singleEncoded { return (200, ["Content-Type": "application/json"], array) }
        let encoded = (try? JSONSerialization.data(withJSONObject: String(decoding: array, as: UTF8.self),
                                                   options: [.fragmentsAllowed])) ?? Data()
        return (200, ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache"], encoded)
    }
}
