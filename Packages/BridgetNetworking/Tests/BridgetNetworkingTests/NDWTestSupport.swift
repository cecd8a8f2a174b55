import Foundation
import Testing

/// The real NDW snapshot of 2023-11-22 (Fixtures/), gzip-compressed as published.
enum NDWFixture {
    static func url() throws -> URL {
        try #require(Bundle.module.url(forResource: "ndw-brugopeningen-2023-11-22.xml", withExtension: "gz",
                                       subdirectory: "Fixtures"), "the NDW snapshot is missing from the test bundle")
    }

    static func data() throws -> Data { try Data(contentsOf: url()) }
}

/// Runs `python3` for a check made without Bridget's code. A machine without python3 fails the test with the
/// reason (Scripts/setup installs it); it never skips.
///
/// Awaits the process instead of blocking a thread on it: Swift Testing runs every test on the few threads of the
/// cooperative pool (two on a two-core machine), and the root package's timing tests share them.
enum Python {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `python3 -c script arguments…` with `input` on standard input; returns standard output.
    static func run(_ script: String, arguments: [String] = [], input: Data = Data()) async throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appending(path: "ndw-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inURL = folder.appending(path: "in"), outURL = folder.appending(path: "out"), errURL = folder.appending(path: "err")
        try input.write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let stdin = try FileHandle(forReadingFrom: inURL)
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        defer { try? stdin.close(); try? stdout.close(); try? stderr.close() }

        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: Failure(description: "could not start /usr/bin/env python3: \(error)"))
            }
        }
        let errors = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        switch status {
        case 0:
            return try Data(contentsOf: outURL)
        case 127:
            throw Failure(description: "python3 is not on PATH: the independent check needs it (Scripts/setup installs it). \(errors)")
        default:
            throw Failure(description: "python3 exited with status \(status): \(errors)")
        }
    }
}

/// DATEX II documents written for a test, shaped like NDW's (see the fixture).
enum DatexDocument {
    static let bridgeSituation = "PNH01_NLWMH002340560000502_72565910"

    /// One `situation` with one `situationRecord`; `nil` leaves an element or attribute out. `extra` goes inside
    /// the record. `p` is the DATEX II prefix (`d2:`, or empty for the default namespace).
    static func situation(
        id: String? = bridgeSituation, version: String? = "3", recordID: String? = "\(bridgeSituation)_01",
        recordVersion: String? = "3", probability: String? = "riskOf", source: String? = "PNH01",
        start: String? = "2023-11-23T00:01:00.000Z", end: String? = "2023-11-23T00:07:00.000Z",
        versionTime: String? = "2023-11-20T09:59:31.860Z", type: String? = "bridgeSwingInOperation",
        point: (String, String)? = ("52.7076664316445", "4.71626244833748"),
        display: (String, String)? = ("52.7076664316445", "4.71626244833748"), extra: String = "", p: String = ""
    ) -> String {
        func attribute(_ name: String, _ value: String?) -> String { value.map { " \(name)=\"\($0)\"" } ?? "" }
        func element(_ name: String, _ value: String?) -> String { value.map { "<\(p)\(name)>\($0)</\(p)\(name)>" } ?? "" }
        func location(_ pair: (String, String)) -> String { element("latitude", pair.0) + element("longitude", pair.1) }
        let times = element("overallStartTime", start) + element("overallEndTime", end)
        let sourceXML = source.map { "<\(p)source><\(p)sourceName><\(p)values><\(p)value lang=\"nl\">\($0)</\(p)value></\(p)values></\(p)sourceName></\(p)source>" } ?? ""
        let displayXML = display.map { "<\(p)locationForDisplay>\(location($0))</\(p)locationForDisplay>" } ?? ""
        let pointXML = point.map { "<\(p)pointByCoordinates><\(p)pointCoordinates>\(location($0))</\(p)pointCoordinates></\(p)pointByCoordinates>" } ?? ""
        return """
        <\(p)situation\(attribute("id", id))\(attribute("version", version))><\(p)overallSeverity>unknown</\(p)overallSeverity>
        <\(p)situationRecord xsi:type="GeneralNetworkManagement"\(attribute("id", recordID))\(attribute("version", recordVersion))>\
        \(element("situationRecordVersionTime", versionTime))\(element("probabilityOfOccurrence", probability))\(sourceXML)\
        <\(p)validity><\(p)validityStatus>definedByValidityTimeSpec</\(p)validityStatus>\
        <\(p)validityTimeSpecification>\(times)</\(p)validityTimeSpecification></\(p)validity>\
        <\(p)groupOfLocations xsi:type="Point">\(displayXML)\(pointXML)</\(p)groupOfLocations>\
        \(element("generalNetworkManagementType", type))\(extra)</\(p)situationRecord></\(p)situation>
        """
    }

    /// A whole feed around `situations`: inside a SOAP envelope (as NDW sends it) or bare, in the default
    /// namespace or with the DATEX II prefix `p`.
    static func feed(_ situations: [String], publicationTime: String? = "2023-11-22T05:42:03.283Z",
                     publicationType: String = "SituationPublication", soap: Bool = true, p: String = "") -> Data {
        let namespace = p.isEmpty ? "xmlns" : "xmlns:\(p.dropLast())"
        let time = publicationTime.map { "<\(p)publicationTime>\($0)</\(p)publicationTime>" } ?? ""
        let model = """
        <\(p)d2LogicalModel \(namespace)="http://datex2.eu/schema/2/2_0" modelBaseVersion="2" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><\(p)exchange><\(p)supplierIdentification>\
        <\(p)country>nl</\(p)country></\(p)supplierIdentification></\(p)exchange>
        <\(p)payloadPublication xsi:type="\(publicationType)" lang="nl">\(time)
        \(situations.joined(separator: "\n"))
        </\(p)payloadPublication></\(p)d2LogicalModel>
        """
        let body = soap
            ? "<SOAP:Envelope xmlns:SOAP=\"http://schemas.xmlsoap.org/soap/envelope/\"><SOAP:Body>\(model)</SOAP:Body></SOAP:Envelope>"
            : model
        return Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(body)".utf8)
    }
}

/// An instant written in ISO 8601 with a zone, read by Foundation (not by the code under test).
func instant(_ text: String) throws -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
    return try #require(formatter.date(from: text), "test instant '\(text)' does not read")
}
