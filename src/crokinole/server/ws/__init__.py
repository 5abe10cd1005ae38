"""The websocket side: the endpoint's session (one connection), its inbound messages and
each viewer's outbound views and payloads.
"""
