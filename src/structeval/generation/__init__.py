"""Problem generation: structure templates, load placement, the seeded generator and the
hand-authored classics.

Generation writes into the task store (:mod:`structeval.dataset`) and never the other
way round: the store, the loader and ``--debug`` work on any data folder, whoever
made it.
"""
