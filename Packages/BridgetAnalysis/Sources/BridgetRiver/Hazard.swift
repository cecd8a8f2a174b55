import Foundation

/// Chances as rates: the river's learner and the now-cast both turn a slot's chance of an opening into the rate of a
/// Poisson process with that chance over the slot.
package enum Hazard {
    /// The rate whose chance of at least one event over one unit is `chance` (−ln(1 − p)), finite at p = 1.
    package static func rate(_ chance: Double) -> Double { -log(max(1 - chance, 1e-12)) }
}
