"""Pixels: the scene rasterized, hand lettering, the pencil, scan tilt and photocopy
effects of a style. Reads only the scene."""
