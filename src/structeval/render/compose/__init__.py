"""One figure put together (symbols, annotation, page, paint) and checked by the
legibility rules; the bending-moment diagram. The layer callers of structeval.render meet."""
