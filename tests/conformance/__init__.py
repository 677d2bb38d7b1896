"""NumPy's own test suite run against cupynum: `python -m tests.conformance` (see __main__.py).

plugin.py is the pytest plugin (numpy -> cupynum in NumPy's test modules, exclusions, timeout,
the outcome log), report.py reads the logs (counts, failure groups, the baseline ratchet,
docs/conformance.md), exclusions.txt lists what cupynum does not run and why."""
