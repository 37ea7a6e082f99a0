// The sending half of spool-send: links libcurl, so the light front execs it only when something is due
// (or for --watch). Takes exactly spool-send's arguments; the logic is SendCommand.
import Glibc
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

// Exec'd by the light front, which did this run's housekeeping and checked the TLS files already.
let housekept = Environment.takeHandOff()
var command = SendCommand.fromCommandLine()
command.loadConfiguration()
if !housekept { command.requireUsableProfiles() }
command.requireDescriptors()
let spool = command.openSpool()
// The engines live as long as the process (their threads never end), so they are held here, where a leak
// checker sees it.
let transport = CurlTransport(settings: command.transport)
let status = await command.send(spool, through: transport, housekept: housekept)
exit(status)
