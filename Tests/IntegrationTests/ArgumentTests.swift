import Foundation
import Testing

/// Command-line values a hostile user types, through the executable: each refusal names its own option, exit 64;
/// every time the tool prints is accepted back.
@Suite("bridget executable: option values")
struct ArgumentTests {
    /// The instant `prune --before TEXT` read, from its JSON (an empty store: nothing is removed).
    func pruneCutoff(_ bridget: BridgetProcess, _ text: String) async throws -> (ProcessResult, String?) {
        let result = try await bridget.run(["prune", "--before", text, "--format", "json"])
        struct Output: Decodable { let before: String }
        return (result, result.status == 0 ? try decodeJSON(Output.self, result.stdout).before : nil)
    }

    @Test("a duration's error names the option it came from", arguments: [
        (["route", "best-time", "commute", "--between", "16:00", "18:00", "--step", "0"], "--step '0'"),
        (["route", "best-time", "commute", "--between", "16:00", "18:00", "--step", "25h"], "--step '25h'"),
        (["cascades", "--within", "0"], "--within '0'"),
        (["cascades", "--within", "soon"], "--within 'soon'"),
        (["predict", "--bridge", "3", "--window", "0"], "--window '0'"),
    ])
    func durationNamesItsOption(_ arguments: [String], _ expected: String) async throws {
        let bridget = BridgetProcess()
        let result = try await bridget.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        if !arguments.contains("--window") { #expect(!result.stderr.contains("--window"), "\(result.stderr)") }
    }

    @Test("an impossible UTC offset is refused wherever a time is read", arguments: [
        "2026-10-01T10:00:00+99:00", "2026-10-01T10:00:00-13:00", "2026-10-01T10:00:00+14:30",
        "2026-10-01T10:00:00+05:60", "2026-10-01T10:00:00+0990",
    ])
    func absurdOffset(_ text: String) async throws {
        let bridget = BridgetProcess()
        for (arguments, option) in [(["prune", "--before", text], "--before"), (["events", "--since", text], "--since"),
                                    (["export", "--since", text], "--since")] {
            let result = try await bridget.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("\(option) '\(text)'") && result.stderr.contains("offset"), "\(result.stderr)")
        }
    }

    @Test("real UTC offsets still read as before", arguments: [
        ("2026-10-01T10:00:00Z", "2026-10-01T10:00:00Z"), ("2026-10-01T10:00:00+14:00", "2026-09-30T20:00:00Z"),
        ("2026-10-01T10:00:00-12:00", "2026-10-01T22:00:00Z"), ("2026-10-01T10:00:00+05:30", "2026-10-01T04:30:00Z"),
        ("2026-10-01T10:00:00.250-07:00", "2026-10-01T17:00:00Z"),
    ])
    func realOffsets(_ text: String, _ instant: String) async throws {
        let (result, before) = try await pruneCutoff(BridgetProcess(), text)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(before == instant)
    }

    @Test("the time form the tables print is read back as the same instant", arguments: [
        ("2026-10-01 10:00 PDT", "2026-10-01T17:00:00Z"), ("2026-01-15 10:00 PST", "2026-01-15T18:00:00Z"),
        ("2026-01-15T10:00 pst", "2026-01-15T18:00:00Z"), ("2026-10-01 10:00:30 PDT", "2026-10-01T17:00:30Z"),
        // The repeated hour of the autumn fall-back: the zone tells the two apart.
        ("2025-11-02 01:30 PDT", "2025-11-02T08:30:00Z"), ("2025-11-02 01:30 PST", "2025-11-02T09:30:00Z"),
    ])
    func printedFormReadsBack(_ text: String, _ instant: String) async throws {
        let bridget = BridgetProcess()
        let (result, before) = try await pruneCutoff(bridget, text)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(before == instant)
        let table = try await bridget.run(["prune", "--before", text])
        let printed = String(text.prefix(16)).replacingOccurrences(of: "T", with: " ") + " " + text.suffix(3).uppercased()
        #expect(table.stdout.contains("Removed the openings before \(printed)."), "\(table.stdout)")
        #expect(try await bridget.run(["events", "--since", text]).status == 0)
        #expect(try await bridget.run(["export", "--since", text]).status == 0)
    }

    @Test("a zone Seattle was not in at that time is refused", arguments: [
        "2026-01-15 10:00 PDT", "2026-07-01 10:00 PST", "2026-03-08 02:30 PST", "2026-10-01 10:00 EDT",
    ])
    func wrongZone(_ text: String) async throws {
        let (result, _) = try await pruneCutoff(BridgetProcess(), text)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--before '\(text)'"), "\(result.stderr)")
    }

    @Test("an empty route name or an empty bridge name in --via is refused")
    func emptyNames() async throws {
        let bridget = BridgetProcess()
        for name in ["", "  "] {
            let result = try await bridget.run(["route", "add", name, "--via", "Fremont@5"])
            #expect(result.status == 64)
            #expect(result.stderr.contains("route name"), "\(result.stderr)")
        }
        for via in ["Fremont/@5", "/Fremont@5", "Fremont//Ballard@5", "@5", " /Fremont@5"] {
            let result = try await bridget.run(["route", "add", "commute", "--via", via])
            #expect(result.status == 64, "\(via)")
            #expect(result.stderr.contains("--via '\(via)'") && result.stderr.contains("empty bridge name"), "\(result.stderr)")
        }
        struct Route: Decodable { let id: String }
        #expect(try decodeJSON([Route].self, try await bridget.run(["route", "list", "--format", "json"]).stdout).isEmpty)
        let good = try await bridget.run(["route", "add", "commute", "--via", "Fremont/Ballard@5"])
        #expect(good.status == 0, "\(good.stderr)")
    }
}
