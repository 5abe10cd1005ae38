"""The websocket side: the endpoint's session (one connection, an explicit state machine),
its inbound messages and each viewer's outbound views and payloads.

``state`` (where a connection stands), ``session`` (its life cycle: reading,
writing, the table it follows), ``dispatch`` (what each message does),
``messages`` (inbound, typed), ``views`` (outbound, per viewer) and
``payloads`` (the game's data shapes); ``wire`` only re-exports the two
halves for callers that still import it.
"""
