"""Statistics of runs, shared by the harness (``results.json``) and the reports.

``resampling`` holds the numerics (bootstrap intervals, Wilcoxon signed-rank,
weighted means; numpy only); ``runs`` turns the tasks of one or more runs into
per-task scores, intervals and stage consistency. Living below both the harness
and the reports keeps imports flowing one way: reports read what the harness
wrote, the harness never imports a report.
"""
