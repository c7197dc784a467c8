"""The benchmark suites, one folder each, found through one registry (`registry`).

A suite's folder holds all of its code: its rules (`rules.py`, the numbers of the
benchmark, declared once and read by both the live schedule and the scorer), its
scenario schema and validator, generator and importers, live schedule, oracle
behaviour, scorer, tables and report section, and its command-line parts. Its
``__init__`` declares the `SuitePlugin` record, naming every part by a lazy
``"module:attr"`` path. The engine (scenarios, pipelines, scoring, report,
processors) never imports a suite module except through that record.

Each file of a suite folder belongs to the layer of its role (tests/test_layers.py):
``rules`` and ``__init__`` are base; schema, validation, generation and import are
scenarios; ``schedule`` is pipelines; ``oracle`` is processors; scoring modules are
scoring; ``report`` is report; ``commands`` is top.
"""
