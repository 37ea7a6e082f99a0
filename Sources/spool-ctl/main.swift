// spool-ctl: look at and act on the operations in a spool. The logic is ControlCommand, in the library.
import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport
import SpoolWeb

let command = ControlCommand.fromCommandLine()
exit(command.subcommand == "cgi" ? TriageCGI(command: command).run() : command.run())
