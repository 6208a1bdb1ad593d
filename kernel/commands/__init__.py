"""The protocol's commands: the session every command shares (the game, the level, the clocks
and the position's analysis worked out once), reading arguments, the handlers by the
protocol's sections, and the engine's messages.

kernel.kernel puts the handlers in its alphabetical command table; everything else of the
engine lies below.
"""
