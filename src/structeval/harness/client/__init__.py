"""The API client: chat-completion transport over ``openai`` (imported only when a
request is sent), its HTTP deadline, parameter negotiation, model families, service errors
and the shapes of replies."""
