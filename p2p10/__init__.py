"""p2p10's pure core: cards, rules engine, rule options, meld solver and simulation.

Nothing in this package does I/O, reads a clock or draws randomness it was not given.
"""

__version__ = "0.1.0"
