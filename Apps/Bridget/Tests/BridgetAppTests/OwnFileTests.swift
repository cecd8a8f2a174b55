import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation
import Testing

/// Every file Bridget writes goes through `OwnFile`: these are its rules, tried on real files, links and modes.
@Suite("Files Bridget writes")
struct OwnFileTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "bridget-ownfile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("a new file gets its mode exactly, whatever the umask; a replaced file keeps its own")
    func modes() throws {
        let path = folder + "/new.yaml"
        let old = umask(0o077)
        defer { umask(old) }
        try OwnFile.replace(path, with: Data("a".utf8))
        #expect(try mode(path) == 0o644)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try OwnFile.replace(path, with: Data("b".utf8))
        #expect(try mode(path) == 0o600 && String(contentsOfFile: path, encoding: .utf8) == "b")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }

    @Test("a dangling link is refused and nothing is created where it points; a link to this user's file is followed")
    func links() throws {
        let link = folder + "/rules.yaml"
        let missing = folder + "/elsewhere/missing.yaml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: missing)
        #expect(throws: OwnFile.Refusal.danglingLink(path: link, destination: missing)) {
            try OwnFile.replace(link, with: Data("x".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))

        let real = folder + "/real.yaml"
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: real)
        let good = folder + "/good.yaml"
        try FileManager.default.createSymbolicLink(atPath: good, withDestinationPath: real)
        try OwnFile.replace(good, with: Data("new".utf8))
        #expect(try String(contentsOfFile: real, encoding: .utf8) == "new")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: good) == real, "the link stays a link")
        #expect(try mode(real) == 0o640)
    }

    @Test("a link to another user's file is refused")
    func foreignLink() throws {
        let target: String
        if geteuid() == 0 {
            target = folder + "/theirs.yaml"
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: target))
            #expect(chown(target, 65_534, 65_534) == 0)
        } else {
            target = "/etc/passwd" // root's, so another user's here
        }
        let link = folder + "/routes.yaml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: OwnFile.Refusal.self) { try OwnFile.replace(link, with: Data("x".utf8)) }
        #expect(try String(contentsOfFile: target, encoding: .utf8) != "x")
    }

    @Test("the size bound is checked on what would be written, before anything is")
    func bound() throws {
        let path = folder + "/bounded.yaml"
        try OwnFile.replace(path, with: Data("small".utf8), maximumBytes: 10)
        #expect(throws: OwnFile.Refusal.tooLarge(path: path, bytes: 11, limit: 10)) {
            try OwnFile.replace(path, with: Data("12345678901".utf8), maximumBytes: 10)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "small")
    }

    @Test("rules add through a dangling rules.yaml link is refused with the link named, and leaves no file")
    func rulesThroughDanglingLink() async throws {
        let link = folder + "/rules.yaml"
        let missing = folder + "/gone/rules.yaml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: missing)
        let rules = RuleFile(path: link, catalog: .seattle)
        let deviation = RuleDeviationDTO(id: "run", bridgeIDs: ["3"], from: "2027-05-16T08:00:00",
                                         until: "2027-05-16T10:30:00", reason: "a run")
        await #expect { _ = try await rules.add([deviation]) } throws: { error in
            (error as? BridgetError)?.message.contains("symbolic link to \(missing), which does not exist") == true
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("a rules time takes --at's forms: zone suffixes, the gap moved forward, the years 1900–2999; no time of day")
    func ruleTimes() throws {
        func deviation(_ from: String, _ until: String) throws -> RuleDeviationDTO {
            try RuleCheck.deviation(id: "d", bridges: ["3"], from: from, until: until, reason: "r", source: nil,
                                    catalog: .seattle, origin: "test")
        }
        let suffixed = try deviation("2027-05-16 08:00 PDT", "2027-05-16 10:30 PDT")
        #expect(suffixed.from == "2027-05-16T08:00:00" && suffixed.until == "2027-05-16T10:30:00")
        let gap = try deviation("2024-03-10 02:10", "2024-03-10 02:40")
        #expect(gap.from == "2024-03-10T03:10:00" && gap.until == "2024-03-10T03:40:00", "moved forward by the gap")
        #expect(throws: BridgetError.self) { try deviation("0001-01-01 08:00", "0001-01-01 09:00") }
        #expect(throws: BridgetError.self) { try deviation("9999-01-01 08:00", "9999-01-01 09:00") }
        #expect(throws: BridgetError.self) { try deviation("08:00", "09:00") }
        #expect(throws: BridgetError.self) { try deviation("2027-05-16 08:00 CET", "2027-05-16 09:00") }
    }

    @Test("a rules document with a key Bridget does not know is refused, naming the key")
    func unknownKeys() throws {
        let misspelt = """
            deviations:
              - id: run
                bridges: ["3"]
                from: "2027-05-16T08:00:00"
                untill: "2027-05-16T10:30:00"
                until: "2027-05-16T10:30:00"
                reason: a run
            """
        #expect { _ = try RuleDocument.deviations(fromYAML: misspelt, catalog: .seattle, origin: "f") } throws: { error in
            (error as? BridgetError)?.message.contains("unknown key 'untill'") == true
        }
        #expect { _ = try RuleDocument.deviations(fromYAML: "deviation: []\n", catalog: .seattle, origin: "f") } throws: {
            (($0 as? BridgetError)?.message.contains("unknown key 'deviation'")) == true
        }
    }
}
