"""Owning tables: applying their commands, their timers, the CPU players' pool, loading a
table from its log.
"""
