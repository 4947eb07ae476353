"""Reports researchers can publish: error bars, paired comparisons, leaderboards, HTML pages.

``stats`` holds the statistics (numpy only); the other modules read run
directories written by ``run_eval.py`` and turn them into tables and pages.
"""
