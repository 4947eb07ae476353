"""The DXF export: the composed scene written as CAD entities, layers, text styles and
associative dimensions (ezdxf, optional)."""
