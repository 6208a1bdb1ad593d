"""Tuning the evaluation's weights from game records: Texel's method (docs/arena.md,
"Texel's method"). A program that computes with the engine's code but is no engine: it
imports the kernel only, and is not installed."""
