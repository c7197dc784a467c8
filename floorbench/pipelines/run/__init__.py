"""The run loop and its records: scenarios N at a time, one room each, resume, timing verdicts, run.json."""
