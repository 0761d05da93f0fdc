"""The Regelwerk front end: YAML loading, the expression grammar and parser,
JSON Schema structure checks and located diagnostics."""
