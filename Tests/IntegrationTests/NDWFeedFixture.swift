import Foundation

/// A DATEX II bridge-openings snapshot as NDW publishes it, made for a test: situations with an id, a version, a
/// probability (`riskOf` announced, `certain` under way) and a window relative to a moment, gzipped.
struct NDWFeedFixture {
    struct Record {
        /// The situation's sequence number; its bridge is `bridge`.
        let id: String
        let version: Int
        let underWay: Bool
        /// Minutes from the fixture's moment.
        let start: Int
        let end: Int
        let bridge: Bridge
    }

    /// A bridge of the fixture: an ISRS location code and a position.
    struct Bridge {
        let isrs: String
        let latitude: Double
        let longitude: Double

        /// Its catalog id (NDW's bridges are named by their ISRS code).
        var id: String { isrs }

        static let a = Bridge(isrs: "NLWMH002340560000502", latitude: 52.7076664316445, longitude: 4.71626244833748)
        static let b = Bridge(isrs: "NLAMS003630100100406", latitude: 52.3779, longitude: 4.8976)
    }

    let moment: Date

    /// The snapshot of `records`, published at `moment`, gzipped.
    func gzip(_ records: [Record]) async throws -> Data {
        let formatter = ISO8601DateFormatter()
        func at(_ minutes: Int) -> String { formatter.string(from: moment.addingTimeInterval(Double(minutes * 60))) }
        var situations = ""
        for record in records {
            let id = "PNH01_\(record.bridge.isrs)_\(record.id)"
            situations += """
                <situation id="\(id)" version="\(record.version)"><overallSeverity>unknown</overallSeverity>\
                <situationVersionTime>\(at(0))</situationVersionTime><headerInformation><confidentiality>noRestriction\
                </confidentiality><informationStatus>real</informationStatus></headerInformation>\
                <situationRecord xsi:type="GeneralNetworkManagement" id="\(id)_01" version="\(record.version)">\
                <situationRecordCreationTime>\(at(0))</situationRecordCreationTime><situationRecordVersionTime>\(at(0))\
                </situationRecordVersionTime><probabilityOfOccurrence>\(record.underWay ? "certain" : "riskOf")\
                </probabilityOfOccurrence><source><sourceName><values><value lang="nl">PNH01</value></values></sourceName>\
                </source><validity><validityStatus>definedByValidityTimeSpec</validityStatus><validityTimeSpecification>\
                <overallStartTime>\(at(record.start))</overallStartTime><overallEndTime>\(at(record.end))</overallEndTime>\
                </validityTimeSpecification></validity><groupOfLocations xsi:type="Point"><locationForDisplay>\
                <latitude>\(record.bridge.latitude)</latitude><longitude>\(record.bridge.longitude)</longitude>\
                </locationForDisplay><pointByCoordinates><pointCoordinates><latitude>\(record.bridge.latitude)</latitude>\
                <longitude>\(record.bridge.longitude)</longitude></pointCoordinates></pointByCoordinates></groupOfLocations>\
                <operatorActionStatus>approved</operatorActionStatus><complianceOption>mandatory</complianceOption>\
                <generalNetworkManagementType>bridgeSwingInOperation</generalNetworkManagementType></situationRecord>\
                </situation>
                """
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?><SOAP:Envelope xmlns:SOAP="http://schemas.xmlsoap.org/soap/envelope/">\
            <SOAP:Body><d2LogicalModel xmlns="http://datex2.eu/schema/2/2_0" modelBaseVersion="2" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><exchange><supplierIdentification><country>nl</country>\
            <nationalIdentifier>NLNDW</nationalIdentifier></supplierIdentification></exchange>\
            <payloadPublication xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="SituationPublication" \
            lang="nl"><publicationTime>\(at(0))</publicationTime><publicationCreator><country>nl</country>\
            <nationalIdentifier>NLNDW</nationalIdentifier></publicationCreator>\(situations)</payloadPublication>\
            </d2LogicalModel></SOAP:Body></SOAP:Envelope>
            """
        return try await Self.gzipped(Data(xml.utf8))
    }

    /// `data` through the system's gzip.
    static func gzipped(_ data: Data) async throws -> Data {
        let folder = NSTemporaryDirectory() + "ndw-fixture-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/feed.xml"
        try data.write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-n", path]
        try await process.runToExit()
        guard process.terminationStatus == 0, let zipped = FileManager.default.contents(atPath: path + ".gz") else {
            throw CocoaError(.fileWriteUnknown)
        }
        return zipped
    }
}
