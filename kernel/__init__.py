"""cubemate's engine: the board, the rules and the protocol behind main.py.

Its floors, from the bottom up (docs/design.md draws the map): the services (protocol,
interrupt, clock, logs), cube/ (the board and the rules), text/ (notation), mates/ (the mate
searches), tables/ (the endgame tables), play/ (the player), config.py, records/ (game
records), commands/ (the handlers) and kernel.py (the command table). Each imports only the
floors below it.
"""
