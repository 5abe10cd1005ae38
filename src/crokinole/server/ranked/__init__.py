"""Ranked play on the server: the queue that pairs players, and the results that move
ratings.
"""
