"""The benchmark rules, one module per suite.

Each suite's numbers (gaps, windows, deadlines) are declared once, in the
benchmark's own words, in that suite's module; the live schedule that plays
the suite and the scorer that judges it both read the same record, so a
changed rule cannot reach one side and not the other. Base layer: this
package imports nothing else of floorbench.
"""
