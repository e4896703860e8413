"""The command line's own wing: each headless command in a module of its own. None of them loads Textual (the
`headless-commands-without-textual` import contract and tests/unit/test_layering.py hold them to it)."""
