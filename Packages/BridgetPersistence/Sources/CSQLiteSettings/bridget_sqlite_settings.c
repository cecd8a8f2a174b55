#include "bridget_sqlite_settings.h"

#include <sqlite3.h>

int bridget_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
