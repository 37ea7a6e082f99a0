// spool-ctl: look at and act on the operations in a spool. The logic is ControlCommand, in the library.
import Glibc
import Spool
import SpoolWeb

let command = ControlCommand.fromCommandLine()
exit(command.subcommand == "cgi" ? TriageCGI(command: command).run() : command.run())
