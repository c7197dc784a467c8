"""`offline+llm:<model>`: the offline judge first, the LLM judge only where it is unsure.

An LLM judge costs money and time per item; the offline rules decide most items
for nothing. This judge runs the offline rules on the whole batch and sends
only the items they leave `unsure` to the second judge, so a user pays for the
hard items alone. Each verdict keeps the name of the judge that gave it in its
reason (`rule` is the deciding judge's), and the offline reason for being
unsure is kept in `extra`.
"""

from __future__ import annotations

from collections.abc import Sequence

from floorbench.scoring.judges import Judge, JudgeInput, JudgeVerdict, OnVerdict, Verdict, judge_id


class CascadeJudge:
    """`first` on everything; `second` on what `first` is unsure of."""

    def __init__(self, first: Judge, second: Judge) -> None:
        self.first, self.second = first, second
        self.name = f"{first.name}+{second.name}"
        self.prompt_version = f"{first.prompt_version}+{second.prompt_version}"

    def identity(self) -> dict[str, object]:
        return {"first": judge_id(self.first), "first_identity": self.first.identity(),
                "second": judge_id(self.second), "second_identity": self.second.identity()}

    def judge(self, inputs: Sequence[JudgeInput], on_verdict: OnVerdict | None = None) -> list[JudgeVerdict]:
        out = self.first.judge(inputs)
        unsure = [n for n, v in enumerate(out) if v.verdict is Verdict.unsure]
        for n, v in enumerate(out):
            if v.verdict is not Verdict.unsure and on_verdict is not None:
                on_verdict(n, v)
        if unsure:
            def arrived(k: int, v: JudgeVerdict) -> None:
                n = unsure[k]
                first_reason = out[n].reason
                v.extra = {**v.extra, "offline_unsure": first_reason}
                v.reason = f"{judge_id(self.second)} (offline unsure: {first_reason}): {v.reason}"
                out[n] = v
                if on_verdict is not None:
                    on_verdict(n, v)

            fresh = self.second.judge([inputs[n] for n in unsure], on_verdict=arrived)
            for k, v in enumerate(fresh):
                if out[unsure[k]].verdict is Verdict.unsure:
                    arrived(k, v)
        return out
