import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

@Suite("JSON syntax check")
struct JSONSyntaxTests {
    static let valid = [
        "[]", "{}", " [ ] ", "0", "-0", "12.5e-3", "1E+2", "true", "false", "null", "\"\"", #""a\"b\\c\/\u00e9\n""#,
        #"[{"entityid":"3","opendatetime":"2026-09-23T22:35:00.000"},{"n":1.5,"x":[true,false,null,{}]}]"#,
        "\n[\n {\"a\" : [ 1 , 2 ] } \r\n]\t", #"{"nested":{"deeper":{"deepest":[[[]]]}}}"#, "\"é 🌉\"",
    ]
    static let invalid = [
        "", " ", "[", "]", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{a:1}", "[1 2]", "01", "1.", ".5",
        "1e", "-", "+1", "tru", "nul", "True", "[\"a\nb\"]", #""\x""#, #""\u12G4""#, "\"open", "[1]]", "[1] [2]",
        "{\"a\":1]", "[}", "<html>503</html>", "[{\"a\":\"b\"}", "NaN", "[1,\"2\",{\"3\":[4]}",
    ]

    /// Foundation's parser accepts a trailing comma; RFC 8259 does not, and neither does the check.
    static let foundationIsLenient: Set = ["[1,]", "{\"a\":1,}"]

    @Test("agrees with JSONSerialization on well-formed and malformed documents", arguments: valid + invalid)
    func agreesWithFoundation(_ text: String) {
        let data = Data(text.utf8)
        let foundation = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
        #expect(JSONSyntax.isValid(data) == Self.valid.contains(text))
        #expect(JSONSyntax.isValid(data) == foundation || Self.foundationIsLenient.contains(text))
    }

    @Test("every proper prefix of a page is refused, as a cut-off response would be")
    func truncatedPagesAreRefused() {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, row) in RowScannerTests.awkward.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            row.appendJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        let page = Data(bytes)
        #expect(JSONSyntax.isValid(page))
        for length in 0..<page.count {
            #expect(!JSONSyntax.isValid(page.prefix(length)), "a prefix of \(length) bytes was accepted")
        }
    }

    @Test("nesting deeper than the limit is refused without exhausting the stack")
    func depthIsBounded() {
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect(!JSONSyntax.isValid(deep))
        #expect(JSONSyntax.isValid(deep, maximumDepth: 100_000))
        #expect(JSONSyntax.isValid(Data("[[[1]]]".utf8), maximumDepth: 3))
        #expect(!JSONSyntax.isValid(Data("[[[1]]]".utf8), maximumDepth: 2))
    }
}
