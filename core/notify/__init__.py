"""Where runai-triage hands a finished report to people: today, an incoming webhook (`watch --post`)."""
