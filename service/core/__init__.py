"""The application core: the services of naipes (:mod:`service.core.naipes`) over the rules
(:mod:`domain`) and the event store (:mod:`events`); no HTTP, no command line."""
