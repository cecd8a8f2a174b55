import BridgetAnalysis
import BridgetDTOs
import Foundation
import Testing

/// The shared rule book on source-neutral observations: instants as well as local readings, another city's clock,
/// announced openings. (The Socrata format's own rules are tested with its reader, in SocrataValidationTests.)
@Suite("Observation validator")
struct ObservationValidatorTests {
    static let now = ISO8601DateFormatter().date(from: "2024-11-01T12:00:00Z")!
    static let amsterdam = LocalClock(identifier: "Europe/Amsterdam")!
    static let bridge = BridgeInfoDTO(id: "NLAMS0001", name: "Brug bij 52.37, 4.90", displayName: "Brug bij 52.37, 4.90",
                                      latitude: 52.37, longitude: 4.90, waterway: "", kind: "bascule")
    static let catalog = BridgeCatalog(bridges: [bridge])
    let validator = ObservationValidator(catalog: Self.catalog, clock: Self.amsterdam, now: Self.now)

    static func instant(_ text: String) -> TimeReading { .instant(ISO8601DateFormatter().date(from: text)!) }
    static func local(_ text: String) -> TimeReading { .local(FloatingTimestamp(text)!) }

    static func observation(_ opened: TimeReading, _ closed: TimeReading? = nil, minutes: Double? = nil,
                            status: OpeningStatus = .observed) -> OpeningObservation {
        OpeningObservation(bridgeID: bridge.id, bridgeName: bridge.name, opened: .value(opened),
                           closed: closed.map { .value($0) } ?? .absent,
                           durationMinutes: minutes.map { .value($0) } ?? .absent, status: status,
                           recordID: "rec-1", recordVersion: 3)
    }

    @Test("instants are taken as they are; the local reading kept beside them is the source's zone's")
    func instants() throws {
        let event = try validator.validate(Self.observation(Self.instant("2024-10-30T06:01:00Z"),
                                                            Self.instant("2024-10-30T06:07:00Z"))).get()
        #expect(event.openedAt == ISO8601DateFormatter().date(from: "2024-10-30T06:01:00Z"))
        #expect(event.openLocal == "2024-10-30T07:01:00.000") // CET, an hour ahead of UTC
        #expect(event.closeLocal == "2024-10-30T07:07:00.000")
        #expect(event.durationMinutes == 6)
        #expect(event.recordID == "rec-1" && event.recordVersion == 3 && event.status == .observed)
        #expect(validator.validate(Self.observation(Self.instant("2024-10-30T06:07:00Z"),
                                                    Self.instant("2024-10-30T06:01:00Z"))) == .failure(.closeBeforeOpen))
    }

    @Test("Amsterdam's repeated autumn hour: the first occurrence, or the one the duration agrees with; two records take both")
    func repeatedHour() throws {
        // 2024-10-27: 03:00 CEST became 02:00 CET, so 02:00-02:59 happened twice.
        let first = try validator.validate(Self.observation(Self.local("2024-10-27T02:30:00.000"))).get()
        #expect(first.openedAt == ISO8601DateFormatter().date(from: "2024-10-27T00:30:00Z")) // CEST
        // Opening at 02:50 (the first, CEST), closing at "02:05": fifteen minutes agree only with the second 02:05 (CET).
        let across = try validator.validate(Self.observation(Self.local("2024-10-27T02:50:00.000"),
                                                             Self.local("2024-10-27T02:05:00.000"), minutes: 15)).get()
        #expect(across.closedAt == ISO8601DateFormatter().date(from: "2024-10-27T01:05:00Z"))
        #expect(across.durationMinutes == 15)
        let twice = validator.validate([Self.observation(Self.local("2024-10-27T02:30:00.000")),
                                        Self.observation(Self.local("2024-10-27T02:30:00.000"))])
        #expect(twice.events.map(\.openedAt) == ["2024-10-27T00:30:00Z", "2024-10-27T01:30:00Z"].map {
            ISO8601DateFormatter().date(from: $0)! })
        #expect(validator.mayDependOnBatch(Self.observation(Self.local("2024-10-27T02:30:00.000"))))
        #expect(!validator.mayDependOnBatch(Self.observation(Self.local("2024-10-20T02:30:00.000"))))
        #expect(!validator.mayDependOnBatch(Self.observation(Self.instant("2024-10-27T00:30:00Z"))))
    }

    @Test("Amsterdam's spring gap: a reading that never happened is refused by name; the hour after it is kept")
    func springGap() throws {
        // 2024-03-31: 02:00 CET became 03:00 CEST, so 02:30 never happened.
        #expect(validator.validate(Self.observation(Self.local("2024-03-31T02:30:00.000"))) == .failure(.nonexistentLocalTime))
        let event = try validator.validate(Self.observation(Self.local("2024-03-31T03:30:00.000"))).get()
        #expect(event.openedAt == ISO8601DateFormatter().date(from: "2024-03-31T01:30:00Z"))
        #expect(Self.amsterdam.abbreviation(at: event.openedAt) == "CEST")
        #expect(Self.amsterdam.display(ISO8601DateFormatter().date(from: "2024-01-10T09:00:00Z")!) == "2024-01-10 10:00 CET")
    }

    @Test("an announced opening may lie ahead; an observed one may not")
    func plannedOpenings() {
        let ahead = Self.instant("2024-12-15T10:00:00Z")
        #expect((try? validator.validate(Self.observation(ahead, status: .planned)).get())?.status == .planned)
        #expect(validator.validate(Self.observation(ahead)) == .failure(.openTimeOutOfRange))
    }

    @Test("each unreadable or missing field is rejected with its own reason, the format's defect first")
    func reasons() {
        var record = Self.observation(Self.instant("2024-10-30T06:01:00Z"))
        record.opened = .unreadable("soon")
        #expect(validator.validate(record) == .failure(.unparseableOpenTime))
        record.defect = .controlCharacter
        #expect(validator.validate(record) == .failure(.controlCharacter))
        record = Self.observation(Self.instant("2024-10-30T06:01:00Z"))
        record.closed = .unreadable("later")
        #expect(validator.validate(record) == .failure(.unparseableCloseTime))
        record = Self.observation(Self.instant("2024-10-30T06:01:00Z"))
        record.latitude = .value(52.37)
        #expect(validator.validate(record) == .failure(.coordinatesOutOfRange)) // a latitude without a longitude
        record.longitude = .value(5.5)
        #expect(validator.validate(record) == .failure(.coordinatesFarFromBridge))
        record.bridgeName = ""
        #expect(validator.validate(record) == .failure(.emptyName))
        record.bridgeID = "elsewhere"
        #expect(validator.validate(record) == .failure(.unknownBridgeID))
    }

    @Test("rows of one opening: the later wins however the rows are cut into batches, as a later batch's row updates it",
          arguments: [1, 2, 3, 5, 7, 60])
    func duplicatesDoNotDependOnBatches(size: Int) {
        // Twelve openings, some given twice or three times with another close time; the last row of each is the truth.
        var rows: [OpeningObservation] = []
        var truth: [Date: Date] = [:]
        for opening in 0..<12 {
            let opened = Self.now.addingTimeInterval(Double(-opening - 1) * 3_600)
            for version in 0..<(opening % 3 + 1) {
                let closed = opened.addingTimeInterval(Double(4 + version) * 60)
                rows.append(Self.observation(.instant(opened), .instant(closed)))
                truth[opened] = closed
            }
        }
        // The store's upsert: a later batch's row replaces the stored one.
        var stored: [Date: Date] = [:]
        var rejected = 0
        for start in stride(from: 0, to: rows.count, by: size) {
            let outcome = validator.validate(Array(rows[start..<min(start + size, rows.count)]))
            for event in outcome.events { stored[event.openedAt] = event.closedAt }
            rejected += outcome.rejectionCounts[.duplicateInBatch]
            #expect(outcome.rejected.map(\.index) == outcome.rejected.map(\.index).sorted())
        }
        #expect(stored == truth)
        // Every row is kept or rejected as a duplicate; those a later batch replaced are neither.
        #expect(rejected <= rows.count - truth.count)
        if size >= rows.count { #expect(rejected == rows.count - truth.count) }
    }
}
