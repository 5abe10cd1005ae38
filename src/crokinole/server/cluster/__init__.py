"""The hub: fan-out of table events and ownership of tables, in memory (one process) or on
Redis (several).
"""
