"""cupynum benchmarks: plain NumPy programs timed with NumPy and with cupynum in one run."""
