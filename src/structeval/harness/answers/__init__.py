"""What a model's answer is worth: the JSON extracted from its reply and the staged
grade. Never imports the API client: a rescore grades without it."""
