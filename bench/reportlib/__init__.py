"""bench/report.py's modules: one per benchmark family, and what they share
(common) and make together (summary, page)."""
