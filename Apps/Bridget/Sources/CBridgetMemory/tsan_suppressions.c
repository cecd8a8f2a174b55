// ThreadSanitizer's suppressions built into every bridget process (the sanitizer asks for them at start; a build
// without it never calls this), explained in Scripts/test.d/tsan.supp: DeadlineWatch's deadlines and RequestMetrics'
// meters are behind a Synchronization Mutex contended by the server's threads, whose contended path on Linux
// (FUTEX_LOCK_PI in the uninstrumented Synchronization library) the sanitizer cannot see. Built in, rather than only
// in TSAN_OPTIONS, so that a bridget a test starts with an environment of its own is covered too. BridgetWebTests'
// DeadlineTests prove the lock.
const char *__tsan_default_suppressions(void);

const char *__tsan_default_suppressions(void) {
    return "race:DeadlineWatch\nrace:RequestMetrics\n";
}
