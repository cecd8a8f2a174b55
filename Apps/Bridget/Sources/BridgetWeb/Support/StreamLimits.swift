import BridgetCore
import CBridgetMemory
import Synchronization

/// A budget of bytes shared by many holders: `take` succeeds only while the total stays within `maximum`.
package final class MemoryBudget: Sendable {
    package let maximum: Int
    private let used = Atomic<Int>(0)

    init(maximum: Int) { self.maximum = maximum }

    /// Bytes held now.
    package var inUse: Int { used.load(ordering: .relaxed) }

    func take(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current + bytes <= maximum else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + bytes,
                                                              ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    func give(_ bytes: Int) { used.subtract(bytes, ordering: .relaxed) }
}

/// The stream's connection slots: at most `maximum` clients at once, `perAddress` of them from one remote address.
/// A slot is held by a `Slot` and given back when it goes, however the stream ends (or if it never starts).
package final class StreamSlots: Sendable {
    let maximum: Int
    let perAddress: Int
    private let held = Locked<(total: Int, byAddress: [String: Int], departures: Int)>((0, [:], 0))

    init(maximum: Int, perAddress: Int) {
        self.maximum = maximum
        self.perAddress = perAddress
    }

    /// Clients holding a slot now.
    package var count: Int { held.withLock { $0.total } }

    /// A slot for a client at `address` (`nil`: unknown, counted in the total only), or why there is none.
    func take(address: String?) -> Result<Slot, Refusal> {
        held.withLock { held in
            guard held.total < maximum else { return .failure(.full(maximum)) }
            if let address {
                let mine = held.byAddress[address, default: 0]
                guard mine < perAddress else { return .failure(.address(perAddress)) }
                held.byAddress[address] = mine + 1
            }
            held.total += 1
            return .success(Slot(slots: self, address: address))
        }
    }

    /// Gives a slot back; when the last client has left, or after every 256 departures, the allocator's free memory
    /// goes back to the system (it looks over the whole heap: once per client would cost a burst of departures dear).
    fileprivate func give(address: String?) {
        let trim = held.withLock { held -> Bool in
            held.total -= 1
            held.departures += 1
            if let address {
                let left = held.byAddress[address, default: 1] - 1
                held.byAddress[address] = left > 0 ? left : nil
            }
            guard held.total == 0 || held.departures >= 256 else { return false }
            held.departures = 0
            return true
        }
        if trim { bridget_release_free_memory() }
    }

    enum Refusal: Error, Equatable {
        case full(Int)
        case address(Int)
    }

    /// One client's slot, given back when it is released.
    final class Slot: Sendable {
        private let slots: StreamSlots
        private let address: String?

        fileprivate init(slots: StreamSlots, address: String?) {
            self.slots = slots
            self.address = address
        }

        deinit { slots.give(address: address) }
    }
}
