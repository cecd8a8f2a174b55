import BridgetCLI
import BridgetPersistence

// Before any thread touches SQLite: the setting is the process's, and nothing has used SQLite yet.
let statisticsOff = SQLiteBridgeStore.disableSQLiteMemoryStatistics()
assert(statisticsOff, "SQLite was used before main")
await BridgetCommand.runFromCommandLine()
