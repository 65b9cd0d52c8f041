"""From facts to verdicts: the decision tables (`decide`), the predicted benefit (`benefit`),
and which verdicts an edit can change (`verdict_scope`)."""
