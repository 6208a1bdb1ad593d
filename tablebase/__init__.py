"""Endgame tables for the cube: build, check and count them (docs/tablebases.md).

`python -m tablebase build --size N --pieces K --out DIR` solves every ending of up to K
pieces on the N-cube (tablebase/build.py, the solver in tablebase/retrograde.py and, where it
was built, kernel/core/retrograde.c); `stats DIR` counts them (tablebase/stats.py); `verify
FILE` checks every value against the values after each move (tablebase/verify.py); `info
FILE` says what each file holds and whether it is sound (tablebase/info.py). What the engine
needs to read the files is in kernel/tables/tablebase.py; the format is docs/tablebases.md's.
"""
