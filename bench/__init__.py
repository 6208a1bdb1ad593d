"""cubemate's benchmarks: `python -m bench` (or `make bench`), `--quick` for a smoke test.

- workloads: the positions (reference cases, and tests.positions boards from one seed)
- peer, compare, floor: the engine process against the floor, over alternating rounds
- inprocess: set_board + checkmate and checkmate alone without pipes, against the brute force
- startup: launching main.py against a bare `import structlog`
- report: the tables and the goals
- hotspots: `python -m bench.hotspots WORKLOAD`, a cProfile of the serve loop
"""
