"""Moves, positions and games as people write them: cell, piece and move names in the long and
the short notation, the board notation, reading a typed move and saying why it is not legal,
the showboard picture and the explain lines.

Stands on kernel.cube.
"""
