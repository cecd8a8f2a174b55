/// A 20-character ISRS location code (the inland waterways' Reference Data location code), e.g.
/// `NLWMH002340560000502`: country `NL`, UN/LOCODE location `WMH`, fairway section `00234`, object reference
/// `05600` (for NDW: the bridge), fairway section hectometre `00502`.
public struct ISRSLocationCode: Sendable, Hashable, CustomStringConvertible {
    /// The whole code.
    public let code: String

    /// Reads a code: 2 letters A–Z, then 18 characters A–Z or 0–9 (UN/LOCODE locations hold digits too, and so do
    /// fairway sections such as `130B2`); `nil` otherwise. Upper case only, as the standard writes it.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 else { return nil }
        func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard bytes[0..<2].allSatisfy(isLetter), bytes[2...].allSatisfy({ isLetter($0) || isDigit($0) }) else { return nil }
        code = String(text)
    }

    /// Characters `range` of the code, which is ASCII.
    private func part(_ range: Range<Int>) -> String {
        String(decoding: Array(code.utf8)[range], as: UTF8.self)
    }

    /// The ISO 3166 country, e.g. `NL`.
    public var country: String { part(0..<2) }
    /// The UN/LOCODE location within the country, e.g. `WMH`.
    public var location: String { part(2..<5) }
    /// The fairway section, e.g. `00234`.
    public var fairwaySection: String { part(5..<10) }
    /// The terminal or object reference, e.g. `05600`.
    public var objectReference: String { part(10..<15) }
    /// The hectometre of the fairway section, e.g. `00502`.
    public var hectometre: String { part(15..<20) }

    public var description: String { code }
}
