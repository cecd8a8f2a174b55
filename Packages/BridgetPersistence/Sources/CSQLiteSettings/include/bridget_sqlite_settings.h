#ifndef BRIDGET_SQLITE_SETTINGS_H
#define BRIDGET_SQLITE_SETTINGS_H

/// Turns off SQLite's process-wide memory statistics (`SQLITE_CONFIG_MEMSTATUS`), which take a global mutex
/// around every allocation and free SQLite makes. Takes effect only before SQLite is first used in the process
/// (returns 0 then; SQLITE_MISUSE after), and must not race another thread's use of SQLite. `sqlite3_config` is
/// variadic, which Swift cannot call.
int bridget_sqlite_disable_memory_statistics(void);

#endif
