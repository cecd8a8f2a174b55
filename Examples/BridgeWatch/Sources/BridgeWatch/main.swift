// bridge-watch SERVER [BRIDGE] [CHANGES]: what a phone app asks a Bridget server. Every bridge's state now, the chance
// BRIDGE (default Fremont) opens in the next 20 minutes, then its next CHANGES (default 3) changes from the stream,
// the newest first replayed, and exits.
//   swift run --package-path Examples/BridgeWatch BridgeWatch http://127.0.0.1:8080
import BridgetClient
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let text = arguments.first, let server = URL(string: text), server.scheme?.hasPrefix("http") == true else {
    FileHandle.standardError.write(Data("usage: BridgeWatch http://HOST:PORT [BRIDGE] [CHANGES]\n".utf8))
    exit(64)
}
let bridge = arguments.dropFirst().first ?? "Fremont"
let wanted = arguments.dropFirst(2).first.flatMap(Int.init) ?? 3
let bridget = BridgetAPI(serverURL: server)

/// A line on standard output at once, to a pipe too.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

do {
    // 1. Every bridge now.
    for state in try await bridget.client.getBridgesStatus().ok.body.json.bridges {
        say("\(state.bridgeName): \(state.state.rawValue)")
    }
    // 2. One bridge's next 20 minutes.
    let forecast = try await bridget.client.getBridgeForecast(path: .init(id: bridge), query: .init(window: "20m"))
        .ok.body.json.forecast
    say(String(format: "%@: chance of an opening in the next 20 minutes %.1f%%", forecast.bridgeName,
                 forecast.chanceOfOpening * 100))
    // 3. Its changes as they are stored (the last few replayed from the log first).
    // The log as JSON (asking for JSON only: an Accept that takes text/event-stream gets the endless stream).
    let sequences: [Int] = switch try await bridget.client.streamChanges(
        query: .init(bridge: [bridge], limit: 1000), headers: .init(accept: [.init(contentType: .json)])) {
    case .ok(let ok): try ok.body.json.changes.map {
        switch $0 {
        case .OpeningChange(let change): change.sequence
        case .BulkChange(let summary): summary.sequence
        }
    }
    default: []
    }
    let replayed = sequences.suffix(wanted)
    guard let first = replayed.first else { exit(0) }
    var shown = 0
    for try await change in bridget.changes(bridges: [bridge], after: Int64(first - 1)) {
        if case .opening(let opening) = change {
            say("#\(opening.sequence) \(opening.kind.rawValue): \(opening.bridgeName) opens \(opening.openLocal)")
        } else if case .bulk(let summary) = change {
            say("#\(summary.sequence) bulk: \(summary.total) older openings")
        }
        shown += 1
        if shown >= replayed.count { break }
    }
} catch {
    FileHandle.standardError.write(Data("BridgeWatch: \(error)\n".utf8))
    exit(1)
}
