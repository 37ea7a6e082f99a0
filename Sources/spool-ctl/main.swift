// spool-ctl: look at and act on the operations in a spool. The logic is ControlCommand, in the library.
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

exit(ControlCommand.fromCommandLine().run())
