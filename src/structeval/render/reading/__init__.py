"""What a drawing of a model must say, decided before anything is drawn: how values become
text (value_text) and the exam plan (symmetry, levels, straight runs). Reads the model
only; every layer of the renderer may use it."""
