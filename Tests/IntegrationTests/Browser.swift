import Foundation
import Testing

/// Headless Chromium, as a person's browser: loads a page, gives its DOM after load and its console messages, and a
/// PNG screenshot. A machine without Chromium fails the test that asks, with the reason (Scripts/test installs it).
struct Browser {
    let executable: String

    init() throws {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BrowserMissing()
        }
        executable = found
    }

    struct BrowserMissing: Error, CustomStringConvertible {
        var description: String { "no headless browser: install Debian's chromium (Scripts/test does, with apt-get)" }
    }

    struct Load {
        let dom: String
        /// Lines the page wrote to its console, errors included (`CONSOLE(` lines of Chromium's log).
        let console: [String]
    }

    /// Runs Chromium on `url` with `arguments`; its standard output and error.
    private func run(_ arguments: [String], home: String) async throws -> (String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                             "--user-data-dir=\(home)/chromium-profile", "--enable-logging=stderr", "--v=0"] + arguments
        process.environment = ["HOME": home, "PATH": "/usr/bin:/bin"]
        let out = home + "/chromium-\(UUID().uuidString).out"
        let err = out + ".err"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        // A browser that hangs is ended: the test then fails on what it did not get (240 s, as the page checks': a
        // loaded machine's first answer of a page can take over a minute).
        let watchdog = Task {
            try await Task.sleep(for: .seconds(240))
            if process.isRunning { process.terminate() }
        }
        defer { watchdog.cancel() }
        try await process.runToExit()
        return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    /// The page's DOM once loaded, and its console.
    func load(_ url: String, home: String) async throws -> Load {
        let (dom, log) = try await run(["--dump-dom", url], home: home)
        return Load(dom: dom, console: log.split(separator: "\n").filter { $0.contains(":CONSOLE(") }.map(String.init))
    }

    /// A PNG of the page at `width`×`height`, written to `path`.
    func screenshot(_ url: String, to path: String, width: Int = 1100, height: Int = 1400, home: String)
        async throws
    {
        _ = try await run(["--window-size=\(width),\(height)", "--screenshot=\(path)", url], home: home)
    }

    /// What `Scripts/test.d/pages` found: every page at a phone's size (390×844, emulated through the DevTools protocol)
    /// and a desktop's, checked for sideways overflow, chart text under 11 px, overlapping chart labels, console
    /// messages, axe-core's serious and critical violations, and (on the phone) that a tap shows what a hover shows.
    struct PageChecks {
        let status: Int32
        let output: String
        /// Each failure line of the checks, for an `#expect`.
        var failures: [String] { output.split(separator: "\n").filter { $0.hasPrefix("  ") }.map(String.init) }
        /// How many loads were checked (pages × 2 sizes).
        var checks: Int {
            output.split(separator: "\n").filter { $0.hasPrefix("pages: ") && ($0.contains(" ok (") || $0.contains(" FAILED (")) }
                .count
        }
    }

    /// Runs the page checks on `pages` (a name and a URL each), writing the screenshots to `shots`.
    static func checkPages(_ pages: [(String, String)], shots: String) async throws -> PageChecks {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Each load bounded by 240 s, a hang detector: the server's quality page runs a backtest when none is kept,
        // which a loaded machine has taken over a minute to answer.
        process.arguments = ["python3", root + "/Scripts/test.d/pages", "--shot-density", "1.5", "--timeout", "240",
                             "--shots", shots] + pages.map { "\($0.0)=\($0.1)" }
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let out = shots + "/pages-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardOutput = handle
        process.standardError = handle
        // A hang detector only: the script bounds each load itself.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(1_800))
            if process.isRunning { process.terminate() }
        }
        defer { watchdog.cancel() }
        try await process.runToExit()
        return PageChecks(status: process.terminationStatus,
                          output: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    /// How many distinct colours a PNG holds (Python's zlib decodes it; 8-bit RGB or RGBA, the filters of PNG).
    static func distinctColours(_ path: String) async throws -> Int {
        let script = #"""
        import sys, zlib, struct
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\x89PNG\r\n\x1a\n'
        pos, idat, width, height, kind = 8, b'', 0, 0, 0
        while pos < len(data):
            length, = struct.unpack('>I', data[pos:pos+4]); tag = data[pos+4:pos+8]; body = data[pos+8:pos+8+length]
            if tag == b'IHDR': width, height, depth, kind = struct.unpack('>IIBB', body[:10])
            if tag == b'IDAT': idat += body
            pos += 12 + length
        bpp = 4 if kind == 6 else 3
        raw = zlib.decompress(idat); stride = width * bpp; rows = []; prev = bytearray(stride); i = 0
        for _ in range(height):
            f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
            for x in range(stride):
                a = line[x-bpp] if x >= bpp else 0; b = prev[x]; c = prev[x-bpp] if x >= bpp else 0
                if f == 1: line[x] = (line[x] + a) & 255
                elif f == 2: line[x] = (line[x] + b) & 255
                elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            rows.append(bytes(line)); prev = line
        print(len({row[x:x+3] for row in rows[::4] for x in range(0, stride, bpp * 2)}))
        """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let out = path + ".colours"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out) }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        try await process.runToExit()
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
