// spool-ctl: look at and act on the operations in a spool. The logic is ControlCommand, in the library.
import Glibc
import Spool

exit(ControlCommand.fromCommandLine().run())
