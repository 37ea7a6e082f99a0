// The sending half of spool-send: links libcurl, so the light front execs it only when something is due
// (or for --watch). Takes exactly spool-send's arguments; the logic is SendCommand.
import Spool
import SpoolSystem
import SpoolTransport
import SpoolNames
import SpoolDocument
import SpoolConfiguration
import SpoolQueue
import SpoolHandlers
import SpoolSending
import SpoolReporting
import SpoolControl
import SpoolHTTP

var command = SendCommand.fromCommandLine()
command.loadConfiguration()
command.requireUsableTLSFiles()
command.requireDescriptors()
let spool = command.openSpool()
await command.send(spool, through: CurlTransport(settings: command.transport))
