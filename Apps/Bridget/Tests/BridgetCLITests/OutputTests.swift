import ArgumentParser
@testable import BridgetCLI
import BridgetCore
import BridgetDTOs
import BridgetPersistence
import Foundation
import Testing

@Suite("Output formats and arguments")
struct OutputTests {
    @Test func csvEscapesLikeRFC4180() {
        let table = Tabular(columns: ["name", "note"], rows: [[Cell("Fremont"), Cell("a, \"b\"\nc")]])
        #expect(table.renderCSV() == "name,note\nFremont,\"a, \"\"b\"\"\nc\"")
    }

    @Test("tables align numbers right and text left")
    func tableAlignment() {
        let table = Tabular(columns: ["bridge", "n"], rows: [[Cell("Fremont"), Cell(5)], [Cell("Ballard"), Cell(120)]])
        #expect(table.renderTable() == "bridge     n\n───────  ───\nFremont    5\nBallard  120")
    }

    @Test("heatmap levels, and colour only when asked")
    func heatmap() {
        #expect(Heatmap.level(0, maximum: 10) == 0)
        #expect(Heatmap.level(1, maximum: 10) == 1)
        #expect(Heatmap.level(3, maximum: 10) == 2)
        #expect(Heatmap.level(10, maximum: 10) == 4)
        var counts = [[Int]](repeating: [Int](repeating: 0, count: 24), count: 7)
        counts[0][8] = 4
        counts[6][23] = 1
        let plain = Heatmap(colored: false).render(title: "T", counts: counts)
        let lines = plain.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 9 && lines[2].hasPrefix("Mon") && lines[8].hasPrefix("Sun"))
        #expect(lines[2].dropFirst(5 + 16).hasPrefix("██") && lines[8].hasSuffix("░░"))
        #expect(!plain.contains("\u{1B}"))
        #expect(Heatmap(colored: true).render(title: "T", counts: counts).contains("\u{1B}[38;5;19m██"))
    }

    @Test("a progress line shows rows, rate and, with a total, a bar and the time left")
    func progressLine() {
        let known = ProgressMeter.line(verb: "importing", rows: 250_000, bytes: 50, total: .bytes(200), elapsed: 10,
                                       detail: nil)
        #expect(known == "importing [######..................]  25% 250,000 rows · 25,000 rows/s · ETA 0:30")
        let open = ProgressMeter.line(verb: "syncing", rows: 1_234, bytes: nil, total: nil, elapsed: 2, detail: "page 3")
        #expect(open == "syncing: page 3 · 1,234 rows · 617 rows/s")
        #expect(ProgressMeter.clock(3_725) == "1:02:05")
        // After a resume from half-way, the rate and the time left count only this run's rows and bytes.
        let resumed = ProgressMeter.line(verb: "importing", rows: 150_000, bytes: 150, total: .bytes(200), elapsed: 10,
                                         detail: nil, resumed: (100_000, 100))
        #expect(resumed == "importing [##################......]  75% 150,000 rows · 5,000 rows/s · ETA 0:10")
    }

    @Test("a leading --config moves after the subcommand, before any --")
    func leadingConfig() {
        #expect(BridgetCommand.hoistingLeadingConfig(["--config", "a.yaml", "sync", "--full"])
                == ["sync", "--full", "--config", "a.yaml"])
        #expect(BridgetCommand.hoistingLeadingConfig(["--config=a.yaml", "config", "validate", "--", "-x.yaml"])
                == ["config", "validate", "--config=a.yaml", "--", "-x.yaml"])
        #expect(BridgetCommand.hoistingLeadingConfig(["stats", "--config", "a.yaml"]) == ["stats", "--config", "a.yaml"])
        #expect(BridgetCommand.hoistingLeadingConfig(["--config", "a.yaml"]) == ["--config", "a.yaml"])
    }

    @Test("an unknown command gets the nearest name, at any depth; known words pass")
    func unknownCommands() {
        #expect(BridgetCommand.unknownCommand(in: ["stat"])?.contains("did you mean 'stats'?") == true)
        #expect(BridgetCommand.unknownCommand(in: ["help", "nosuch"])?.contains("'nosuch' is not a command") == true)
        #expect(BridgetCommand.unknownCommand(in: ["route", "scroe", "x"])?.contains("did you mean 'score'?") == true)
        #expect(BridgetCommand.unknownCommand(in: ["import", "file.csv"]) == nil)
        #expect(BridgetCommand.unknownCommand(in: ["route", "score", "commute", "--depart", "17:40"]) == nil)
        #expect(BridgetCommand.unknownCommand(in: ["--version"]) == nil)
    }

    @Test("an instant in CSV is ISO 8601 in UTC to the second, its fraction dropped, as ISO8601DateFormatter wrote it")
    func instantsInCSV() {
        for seconds in [0.0, 1.9, -0.5, 1_790_000_000.999, -2_208_988_800] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            let date = Date(timeIntervalSince1970: seconds)
            #expect(date.internetDateTime == formatter.string(from: date), "\(seconds)")
        }
        #expect(Date(timeIntervalSince1970: 1_790_000_000).internetDateTime == "2026-09-21T14:13:20Z")
    }

    @Test("every command names itself, as the name its type would give: no command's word is found by reflecting on its type, which costs every run milliseconds")
    func commandsNameThemselves() {
        func check(_ commands: [any ParsableCommand.Type], path: String) {
            for command in commands {
                let name = command.configuration.commandName
                let typeName = String(describing: command)
                let derived = typeName.enumerated().map { index, character in
                    index > 0 && character.isUppercase ? "-\(character)" : "\(character)"
                }.joined().lowercased()
                #expect(name != nil, "\(path) \(command) has no commandName")
                #expect(name == derived || typeName.hasSuffix("Command"), "\(path) \(command): \(name ?? "nil")")
                check(command.configuration.subcommands, path: path + " " + (name ?? "?"))
            }
        }
        check(BridgetCommand.configuration.subcommands, path: "bridget")
        #expect(BridgetCommand.commandTree.count == BridgetCommand.configuration.subcommands.count)
    }
}
