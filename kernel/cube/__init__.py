"""The board and the rules: cells on a padded array and the steps between them, the variants
as data, positions, legal moves and check, the start positions and a game's history.

The bottom of the engine: imports nothing else of it.
"""
