// The sending half of spool-send: links libcurl, so the light front execs it only when something is due
// (or for --watch). Takes exactly spool-send's arguments; the logic is SendCommand.
import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHTTP
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

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
