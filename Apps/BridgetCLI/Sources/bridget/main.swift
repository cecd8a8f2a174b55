import BridgetCLI
import BridgetPersistence

// Before any thread touches SQLite: the setting is the process's.
SQLiteBridgeStore.disableSQLiteMemoryStatistics()
await BridgetCommand.runFromCommandLine()
