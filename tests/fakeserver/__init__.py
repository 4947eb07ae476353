"""Test support for the evaluation harness: a scripted OpenAI-compatible server
(:mod:`.server`) and a tiny dataset fixture with answers of every kind (:mod:`.fixture`)."""
