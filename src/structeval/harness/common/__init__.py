"""What every part of the harness shares: the run's settings (grading and transport)
and the trace that redacts secrets before anything is written."""
