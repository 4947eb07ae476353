"""What a model is shown: the prompts (en, zh), the task's image or DXF input, and the
selection of tasks."""
