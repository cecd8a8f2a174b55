import BridgetCaching

/// A small, fast, seedable pseudo-random generator (SplitMix64), identical on every platform and run.
///
/// Swift's `SystemRandomNumberGenerator` and `Hasher` are seeded per process, so they cannot give reproducible
/// sample data; this one can.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// Creates a generator from several seed parts, mixed so that nearby parts give unrelated streams.
    public init(mixing parts: UInt64...) {
        var mixed: UInt64 = 0x243F_6A88_85A3_08D3
        for part in parts {
            var generator = SeededGenerator(seed: mixed ^ part)
            mixed = generator.next()
        }
        state = mixed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A uniform double in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A stable 64-bit digest of a string (FNV-1a), for seeding by name.
    public static func digest(_ text: String) -> UInt64 { FNV1a.hash(text) }
}
