"""One evaluation run: the runner and its repair loop, one request (``ask``), the
response cache, run lock, results, cost, provenance, dry run and rescore."""
