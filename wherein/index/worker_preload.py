"""Imported once by the fork server of `wherein serve` (`prepare.start_fork_server`).

Importing it is the fork server's one chance to ready what every worker it forks will
need: the chunker's imports, the fast tier's model and the queries of the languages seen
in the served folder (`prepare.preload_worker`). Nothing else imports it.
"""

from wherein.index.prepare import preload_worker

preload_worker()
