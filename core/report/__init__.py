"""Rendering a report@1 as JSON, plain text or Markdown."""
