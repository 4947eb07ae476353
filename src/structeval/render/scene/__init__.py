"""The scene every layer draws into and the layout record it keeps: primitives, shapes,
glyph records, layers, styles, fonts and the render result. Imports only reading."""
