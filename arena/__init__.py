"""The arena: matches between players over the protocol, their statistics and the SPRT.

`python -m arena [options] PLAYER1 PLAYER2` (docs/arena.md). Modules, one job each:

- `stats`: score, Elo and its interval, LOS, pentanomial, SPRT (pure functions).
- `speaker`: what answers protocol lines; engine processes through the engine-process layer.
- `referee`: the engine that holds the game and judges it.
- `baselines`: the built-in `random` and `greedy` players.
- `players`: who plays, with what limits; `clock`: GTP time controls.
- `openings`: where each pair of games begins.
- `table`: each worker thread's processes; `game`: one game and its adjudication.
- `records`: the records file and resuming; `tally`: the count; `match`: scheduling.
- `preflight`: the checks before a match; `scoreboard`: the standing of a match under way.
- `report`: the progress line, the final table, the JSON summary.
- `options`: the command line read into settings; `cli`: running it.
"""
