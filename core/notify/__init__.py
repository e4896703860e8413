"""Where runai-triage hands a finished report to people, and the one write it makes: `watch --post`.

- `webhook`: the poster, a client of its own that can send one POST to one URL, inside a deadline;
- `dialects`: which chat a URL is (Slack, Mattermost, any Markdown receiver) and the body each takes;
- `ledger`: what each destination (stdout, each webhook) has received, and each webhook's outbox;
- `state_file`: the file the ledger is kept in: one writer, atomic writes, the old copy kept, nothing lost;
- `courier`: posts one webhook's outbox, in order, backing off while it fails, apart from the printing;
- `storms`: each webhook's storms and cool-downs: which failures go into one post, which are only counted;
- `deliveries`: what goes where: stdout at once, each webhook through its outbox, once per destination;
- `ledger_versions`: the ledger of a state file of any version read, and where a restart looks from.

Keys and failures are opaque here: the watch makes them (core.triage.watch `failure_key`, core.triage.watched).
Nothing here imports the tenant clients or the engine (import-linter contracts say so).
"""
