import BridgetCLI

await BridgetCommand.runFromCommandLine()
