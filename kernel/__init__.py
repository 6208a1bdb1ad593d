"""cubemate's engine: the board, the rules and the protocol behind main.py."""
