"""The command line of ``run_eval.py``: options, grouped help and the printout."""
