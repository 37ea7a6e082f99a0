import Spool
