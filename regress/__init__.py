"""Regression suites in the GTP `.tst` format (GNU Go, gogui-regress), and their runner."""
