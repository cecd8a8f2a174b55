import Synchronization

/// State that threads share, behind a lock whose every hand-over ThreadSanitizer sees: the app's one lock type.
///
/// A Synchronization `Mutex` on Linux takes and gives back an uncontended lock with a compare-and-exchange the compiler
/// inlines into the caller, which the sanitizer instruments. Under contention the kernel hands the lock over
/// (FUTEX_LOCK_PI and FUTEX_UNLOCK_PI, inside libswiftSynchronization, which is not instrumented), so the sanitizer sees
/// neither side and reports the two holders' accesses inside `withLock` as a race. `Locked` adds the ordering the
/// sanitizer can see: each holder reads `handOver` with acquiring ordering once it holds the lock and writes it with
/// releasing ordering before it lets go. The lock already guarantees that order; outside the sanitizer the two cost a
/// plain load and store. `LockedTests` contend on it from many threads and count every update.
///
/// Inlinable, as `Mutex` is: the layers above call it on every request, and a call across modules to an unspecialized
/// generic with a closure would cost more than the lock.
package struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let handOver = Atomic<Int>(0)

    @inlinable
    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            _ = handOver.load(ordering: .acquiring)
            defer { handOver.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}
