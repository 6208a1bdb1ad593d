"""Game records: the record format read and written, replaying a record into a game, and the
files of savegame and loadgame.

Stands on kernel.cube, kernel.text and kernel.config.
"""
