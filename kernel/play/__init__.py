"""The player: what it values (the evaluation), the alpha-beta search in Python and the hand-off
to its compiled twin, and the player that chooses a move under limits and clocks, or from the
tables.

Stands on kernel.cube, kernel.text, kernel.tables and the compiled core (kernel.compiled).
"""
