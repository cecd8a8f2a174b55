/// A DATEX II `probabilityOfOccurrence`: for NDW's bridge feed, whether an opening is under way or planned.
public enum DatexProbability: Sendable, Hashable, CustomStringConvertible {
    /// `certain`: the opening is under way (road traffic is stopped now).
    case certain
    /// `riskOf`: the opening is announced or planned.
    case riskOf
    /// Any other value (DATEX II also defines `probable`), kept as sent; an empty string when the element is absent.
    case unknown(String)

    /// Reads the element's text.
    public init(rawValue: String) {
        switch rawValue {
        case "certain": self = .certain
        case "riskOf": self = .riskOf
        default: self = .unknown(rawValue)
        }
    }

    /// The value as the feed spells it.
    public var rawValue: String {
        switch self {
        case .certain: "certain"
        case .riskOf: "riskOf"
        case let .unknown(value): value
        }
    }

    public var description: String { rawValue.isEmpty ? "(absent)" : rawValue }
}
