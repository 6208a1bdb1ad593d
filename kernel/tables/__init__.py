"""The endgame tables as the engine reads them: the file formats (plain, blocks, the compact
index), a position's index, probing, and a move chosen from the tables.

The generator is the tablebase package beside kernel/; what the engine itself needs stays
here. Stands on kernel.cube.
"""
