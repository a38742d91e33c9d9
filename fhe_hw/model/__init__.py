"""Pure-Python golden models that follow each paper step by step."""
