"""The HTTP routes, one module per group: pages, records and replays, review and practice,
accounts, ranked, score sheets.
"""
