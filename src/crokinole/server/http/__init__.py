"""The HTTP routes, one module per group: pages, records and replays, review and practice,
accounts, ranked, score sheets (the events' routes are :mod:`crokinole.server.events.http`).

Each module exposes its ``routes`` (a list of Starlette routes) whose
endpoints are module-level functions; they read the services from the app's
:class:`~crokinole.server.http.context.HttpContext` (``app.state.http``),
read requests with the shared readers of :mod:`crokinole.server.http.inputs`
and refuse by raising :class:`~crokinole.server.http.errors.HttpError`,
which the one handler of :mod:`crokinole.server.http.errors` answers
``{"code", "message"}``.
"""
