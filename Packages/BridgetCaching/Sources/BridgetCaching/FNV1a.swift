/// FNV-1a with 64 bits: a fast, stable digest (not a cryptographic one) for cache file names and checksums, file
/// identities and seeds derived from names. The one implementation every package uses.
public struct FNV1a: Sendable, Equatable {
    /// The digest of what was combined so far.
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    /// A digest of nothing yet.
    public init() {}

    /// Adds bytes to the digest.
    public mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes { // a raw buffer: a collection's own iterator can cost a call per byte
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        value = hash
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var digest = FNV1a()
        digest.combine(bytes)
        return digest.value
    }

    /// The digest of a string's UTF-8 bytes.
    public static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// `value` as 16 hex digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
