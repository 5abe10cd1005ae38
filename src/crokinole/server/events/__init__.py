"""Events on the server: the service that runs their commands, the HTTP routes, the live stream.

- :mod:`~crokinole.server.events.service`: :class:`EventService` loads an
  event (the fold of its log in the store), runs a command on it (append at
  the expected version, again on a conflict) and tells every process of the
  change through the hub;
- :mod:`~crokinole.server.events.http`: the routes of docs/events.md's HTTP table;
- :mod:`~crokinole.server.events.live`: ``GET /api/events/{id}/stream``, the
  view as Server-Sent Events each time it changes;
- :mod:`~crokinole.server.events.tables`: the online tables of a round and
  their results.
"""
