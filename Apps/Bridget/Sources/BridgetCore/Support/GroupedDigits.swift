/// Whole numbers as people read them in messages: digits in groups of three (`1,012,852`).
extension BinaryInteger {
    /// The number with a comma between groups of three digits.
    package var groupedDigits: String {
        let digits = String(self.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (self < 0 ? "-" : "") + out
    }
}
