extension DatexBridgeOpening {
    /// The bridge's stable id inside an NDW situation id, or `nil` when the id holds none.
    ///
    /// NDW's ids are `<source>_<ISRS location code>_<sequence>`, e.g. `PNH01_NLWMH002340560000502_72565910`
    /// (every one of the 978 situations of the 2023-11-22 snapshot, from two sources, has this shape, and each ISRS
    /// code has one position). The rule, in order:
    /// 1. the first `_`-separated part that is an ISRS location code (`ISRSLocationCode`), wherever it stands, so a
    ///    source name or a sequence of another shape cannot move it;
    /// 2. otherwise, for an id of three or more parts, the parts between the first (the source) and the last (the
    ///    sequence), joined by `_`: a bridge coded some other way still gets one id for all its openings;
    /// 3. otherwise `nil`: the record is rejected rather than given a guessed bridge.
    public static func bridgeID(inSituationID situationID: String) -> String? {
        let parts = situationID.split(separator: "_", omittingEmptySubsequences: false)
        if let code = parts.first(where: { ISRSLocationCode($0) != nil }) { return String(code) }
        guard parts.count >= 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return parts[1..<(parts.count - 1)].joined(separator: "_")
    }
}
