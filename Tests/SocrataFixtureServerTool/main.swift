import Foundation
import SocrataFixtureServer

// socrata-fixture-server: the tests' Socrata-shaped server, on its own, for benchmarks, drills and offline tries.
//   socrata-fixture-server [--port 8080] [--rows 20000] [--seed 1] [--faults 429:1,500,truncated] [--token T]
//                          [--max-limit N] [--wire-faults cut,eof,drip:0.1,gzipbomb,declared:BYTES]
//                          [--serve-file /URLPATH=FILE] [--state-script SECONDS:ID=STATUS,…]
// Point a config at it: provider.kind: live, provider.live.base_url: http://127.0.0.1:8080 (with --wire-faults,
// the URL it prints: a proxy in front of the server breaks the next responses on the wire).
// The live state feed is at /Travelers/api/Map/GetBridgeData (every bridge lowered): provider.live.state_url. A
// script changes it over time (`--state-script 5:3=Open,185:3=Closed`: Fremont raised 5 s after the start, lowered
// 3 min later), and POST /control/state?bridge=3&status=Open, /control/state-fault?plan=html, /control/rows (Socrata
// rows to publish) change it at any time.

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard name.hasPrefix("--"), let value = arguments.popFirst() else {
        if name == "--help" || name == "-h" {
            print("usage: socrata-fixture-server [--port N] [--rows N] [--seed N] [--faults a,b,…] [--token T] "
                  + "[--max-limit N] [--wire-faults a,b,…] [--serve-file /URLPATH=FILE] [--state-script S:ID=STATUS,…]")
            print("faults: 429[:retry-after] 500 503 202 hang:SECONDS truncated html:STATUS oversized malformed text "
                  + "400:shapeN ok short:ROWS empty redirect:PORT")
            print("wire faults (a proxy in front): cut eof drip[:SECONDS] gzipbomb[:BYTES] declared:BYTES")
            exit(0)
        }
        FileHandle.standardError.write(Data("socrata-fixture-server: unexpected argument \(name)\n".utf8))
        exit(64)
    }
    options[String(name.dropFirst(2))] = value
}
let unknown = Set(options.keys).subtracting(["port", "rows", "seed", "faults", "token", "max-limit", "wire-faults",
                                             "serve-file", "state-script"])
guard unknown.isEmpty else {
    FileHandle.standardError.write(Data("socrata-fixture-server: unknown option --\(unknown.sorted()[0])\n".utf8))
    exit(64)
}
guard let port = UInt16(options["port"] ?? "8080"), let rows = Int(options["rows"] ?? "20000"),
      let seed = UInt64(options["seed"] ?? "1")
else {
    FileHandle.standardError.write(Data("socrata-fixture-server: --port, --rows and --seed take numbers\n".utf8))
    exit(64)
}
var faults: [FixtureFault] = []
for item in (options["faults"] ?? "").split(separator: ",") {
    guard let fault = FixtureFault(plan: String(item)) else {
        FileHandle.standardError.write(Data("socrata-fixture-server: unknown fault '\(item)'\n".utf8))
        exit(64)
    }
    faults.append(fault)
}
var wireFaults: [WireFault] = []
for item in (options["wire-faults"] ?? "").split(separator: ",") {
    guard let fault = WireFault(plan: String(item)) else {
        FileHandle.standardError.write(Data("socrata-fixture-server: unknown wire fault '\(item)'\n".utf8))
        exit(64)
    }
    wireFaults.append(fault)
}
let maximumLimit = options["max-limit"].flatMap(Int.init)
if options["max-limit"] != nil, maximumLimit.map({ $0 < 1 }) ?? true {
    FileHandle.standardError.write(Data("socrata-fixture-server: --max-limit takes a positive number\n".utf8))
    exit(64)
}
// With wire faults the proxy takes the port asked for, and the server a free one behind it.
let server = try SocrataFixtureServer(dataset: .generate(rows: rows, seed: seed), port: wireFaults.isEmpty ? port : 0,
                                      requiredToken: options["token"])
server.inject(faults)
server.capLimit(at: maximumLimit)
if let item = options["serve-file"] {
    // URLPATH=FILE: another source's feed file (NDW's gzip) served as it is, with an ETag.
    let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, parts[0].hasPrefix("/"), let body = FileManager.default.contents(atPath: parts[1]) else {
        FileHandle.standardError.write(Data("socrata-fixture-server: --serve-file takes /URLPATH=FILE (a readable file)\n".utf8))
        exit(64)
    }
    server.serve(file: body, at: parts[0], contentType: "application/x-gzip")
}
// SECONDS:ID=STATUS steps of the state feed, each after the start.
var steps: [(seconds: Double, id: String, status: String)] = []
for item in (options["state-script"] ?? "").split(separator: ",") {
    let parts = item.split(separator: ":", maxSplits: 1)
    let change = parts.count == 2 ? parts[1].split(separator: "=", maxSplits: 1) : []
    guard parts.count == 2, let seconds = Double(parts[0]), seconds >= 0, change.count == 2 else {
        FileHandle.standardError.write(Data("socrata-fixture-server: --state-script takes SECONDS:ID=STATUS,…\n".utf8))
        exit(64)
    }
    steps.append((seconds, String(change[0]), String(change[1])))
}
var url = try await server.start()
for step in steps {
    Task {
        try await Task.sleep(for: .seconds(step.seconds))
        server.stateFeed.set(step.id, step.status == "missing" ? nil : step.status)
    }
}
let proxy = WireFaultProxy(upstream: url)
if !wireFaults.isEmpty {
    url = try proxy.start(port: port)
    proxy.inject(wireFaults)
}
if !server.sendsWithoutDelay {
    FileHandle.standardError.write(Data("""
        socrata-fixture-server: could not turn Nagle's algorithm off (no /proc/self/fd?): a response may end \
        with a 40 ms wait for the client's delayed ACK, and timings will include it

        """.utf8))
}
// Written unbuffered: whoever started the server may be waiting for this line on a pipe.
FileHandle.standardOutput.write(Data("serving \(rows) rows of gm8h-9449 at \(url)/resource/gm8h-9449.json (Ctrl-C stops)\n".utf8))
while true { try await Task.sleep(for: .seconds(3600)) }
