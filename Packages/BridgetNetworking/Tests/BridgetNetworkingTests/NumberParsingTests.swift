import BridgetDTOs
@testable import BridgetNetworking
import Foundation
import Testing

@Suite("Reading the dataset's numbers")
struct NumberParsingTests {
    @Test("the plain-decimal path gives exactly what Double(_:) gives, for the awkward cases")
    func awkwardCases() {
        let cases = ["0", "-0", "7", "007", "4.5", "-122.37619018554688", "47.65981674194336", "1e3", "1E-2", ".5", "5.",
                     "-", "", " 4", "4 ", "+4", "inf", "nan", "0x1p3", "1.2.3", "9007199254740993", "9007199254740992.5",
                     "0.1234567890123456789012", "0.00000000000000000000001", "123456789012345678901234", "4,5", "--1"]
        for text in cases {
            let ours = SocrataObservationReader.number(text)
            let reference = Double(text)
            #expect(ours?.bitPattern == reference?.bitPattern || (ours?.isNaN == true && reference?.isNaN == true),
                    "\(text): \(String(describing: ours)) vs \(String(describing: reference))")
        }
    }

    @Test("200,000 random decimals of every length are read bit-for-bit like Double(_:)")
    func randomDecimals() {
        var generator = SystemRandomNumberGenerator()
        var mismatches: [String] = []
        for _ in 0..<200_000 {
            let whole = String(UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63, using: &generator))
            let fractionLength = Int.random(in: 0...24, using: &generator)
            let fraction = String((0..<fractionLength).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            var text = Bool.random(using: &generator) ? "-" : ""
            text += fractionLength == 0 ? whole : whole + "." + fraction
            if SocrataObservationReader.number(text)?.bitPattern != Double(text)?.bitPattern { mismatches.append(text) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
