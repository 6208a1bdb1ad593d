"""The mate searches: the node budget and perft, mate in n by proof numbers, mate in one,
selfmates and helpmates, and the text of a solution.

Stands on kernel.cube, kernel.text and the compiled core (kernel.compiled).
"""
