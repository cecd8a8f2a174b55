import BridgetCLI
import BridgetRuntime
import BridgetSQLite

// Before any thread touches SQLite: the setting is the process's, and nothing has used SQLite yet.
let statisticsOff = SQLiteBridgeStore.disableSQLiteMemoryStatistics()
assert(statisticsOff, "SQLite was used before main")
// The composition root: the parts this build's traits built (Server.swift, Alerts.swift), registered before any
// command runs. (The PostgreSQL store, trait `Postgres`, is a kind of store the assembly makes.)
BuildParts.register(BuildParts(server: serverPart, alerts: alertsPart))
await BridgetCommand.runFromCommandLine()
