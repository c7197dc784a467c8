"""The rubric judge of suite `av`: fluency, conversational flow and grounding, 0–5, by an LLM.

The judge is the project's OpenAI-compatible backend (`judges.llm.LLMJudge`,
its endpoint, key variable, retries and redaction) with its own versioned
prompt, ``prompts/av_rubric_v1.txt``. It sees one JSON payload per clip
(`payload`): the event (dynamic, category, window, what the user does), the
user's clips and words with times, the model's speech segments before, inside
and after the window with their transcripts; and, for a system that sends
video, frames of the model's video sampled over the window, sent as images
(OpenAI content parts). An endpoint that refuses the images (an HTTP error on
the first try) is asked again without them, and the verdict records it.

A reply must be exactly one JSON object with integer scores 0–5 for the three
dimensions (one Markdown fence allowed); anything else is `unparsable` and
enters no mean. Verdicts are cached like the answer judge's, keyed by a hash
of the judge, the prompt version (version + prompt hash + parser version), the
endpoint identity, the payload and the images. Without an LLM judge
(``--judge offline``, the default) the rubric is reported as not judged: no
score is ever made up.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from floorbench.scoring.cache import JsonlCache, content_key
from floorbench.scoring.judges import JudgeError
from floorbench.scoring.judges.llm import reply_body, reply_object

if TYPE_CHECKING:
    from floorbench.scoring.judges.llm import LLMJudge
    from floorbench.suites.av.clip_score import AvScoreOptions, ClipScore

PROMPTS = Path(__file__).resolve().parent / "prompts"
PROMPT = "av_rubric_v1"
PARSER_VERSION = "r1"
DIMENSIONS = ("fluency", "flow", "grounding")
FRAMES = 3
"""model-video frames sampled over the window (start, middle, end)"""
NOT_CONFIGURED = (
    "not judged: no LLM judge configured (score with --judge llm:<model> and --judge-base-url URL)"
)


@dataclass
class RubricVerdict:
    """One clip's rubric: three scores, or unparsable with the reply's start."""

    scores: dict[str, int] | None
    reason: str
    judge: str = ""
    cached: bool = False
    images: int = 0
    """how many frames were sent (0 also when the endpoint refused them: see `images_refused`)"""
    images_refused: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def as_row(self) -> dict[str, Any]:
        base: dict[str, Any] = {
            "judged": True,
            "judge": self.judge,
            "cached": self.cached,
            "reason": self.reason,
            "images": self.images,
            "images_refused": self.images_refused,
        }
        if self.scores is None:
            return base | {"verdict": "unparsable"}
        return base | {"verdict": "scored", **self.scores}


def parse_rubric(text: str) -> RubricVerdict:
    """The scores in a reply, read only from the form the prompt asks for (one JSON object)."""
    obj = reply_object(reply_body(text))
    if obj is None:
        return RubricVerdict(None, f"unreadable reply: {text[:120]!r}")
    scores: dict[str, int] = {}
    for d in DIMENSIONS:
        v = obj.get(d)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 5:
            return RubricVerdict(None, f"'{d}' is not an integer 0–5: {str(v)[:40]!r}")
        scores[d] = v
    return RubricVerdict(scores, str(obj.get("reason", ""))[:300])


def payload(clip: ClipScore, video_frames: int) -> dict[str, Any]:
    """What the judge reads of one clip (times on model.wav's clock, ms)."""
    ev, window = clip.inp.event, clip.inp.window
    assert ev is not None and window is not None
    lo, hi = window[0] - 10_000, window[1] + 10_000
    return {
        "event": {
            "dynamic": ev.dynamic,
            "category": ev.category.value,
            "window_ms": list(window),
            "description": ev.description,
        },
        "user": {
            "clips": [
                {"start_ms": t.start_ms, "end_ms": t.end_ms, "text": t.text}
                for t in clip.inp.user
                if t.end_ms >= lo and t.start_ms <= hi
            ],
            "words": [w for w in clip.inp.words if lo <= int(w["start_ms"]) <= hi],
        },
        "assistant": {
            "segments_before": clip.before,
            "segments_in_window": clip.inside,
            "segments_after": clip.after,
            "transcript_before": clip.texts["before"],
            "transcript_in_window": clip.texts["inside"],
            "transcript_after": clip.texts["after"],
        },
        "assistant_video": f"{video_frames} frames follow, sampled over the window"
        if video_frames
        else "none (the system sent no video)",
    }


class RubricJudge:
    """The rubric prompt on an OpenAI-compatible endpoint (through `LLMJudge`'s transport)."""

    def __init__(self, llm: LLMJudge, prompt: str = PROMPT) -> None:
        self.llm = llm
        self.template = (PROMPTS / f"{prompt}.txt").read_text(encoding="utf-8")
        digest = hashlib.sha256(self.template.encode()).hexdigest()[:8]
        self.name = llm.name
        self.prompt_version = f"{prompt}-{digest}-{PARSER_VERSION}"
        self.concurrency = llm.concurrency

    @property
    def id(self) -> str:
        return f"{self.name}@{self.prompt_version}"

    def settings(self) -> dict[str, object]:
        return {"id": self.id, **self.llm.settings()}

    def key(self, data: dict[str, Any], images: Sequence[bytes]) -> str:
        return content_key(
            "av-rubric",
            self.name,
            self.prompt_version,
            self.llm.identity(),
            data,
            [hashlib.sha256(i).hexdigest() for i in images],
        )

    def ask(self, data: dict[str, Any], images: Sequence[bytes]) -> RubricVerdict:
        from floorbench.suites.av.frames import data_url

        text = self.template.format(payload=json.dumps(data, indent=1, ensure_ascii=False))
        if images:
            parts: list[dict[str, object]] = [{"type": "text", "text": text}]
            parts += [{"type": "image_url", "image_url": {"url": data_url(i)}} for i in images]
            try:
                v = parse_rubric(self.llm.post_messages([{"role": "user", "content": parts}]))
                v.images = len(images)
                return v
            except JudgeError:
                refused = dict(data, assistant_video="frames were recorded but this endpoint refused images")
                v = parse_rubric(
                    self.llm.post_messages(
                        [
                            {
                                "role": "user",
                                "content": self.template.format(
                                    payload=json.dumps(refused, indent=1, ensure_ascii=False)
                                ),
                            }
                        ]
                    )
                )
                v.images_refused = True
                return v
        return parse_rubric(self.llm.post_messages([{"role": "user", "content": text}]))


def judge_rubric(
    judge: RubricJudge, items: Sequence[tuple[dict[str, Any], Sequence[bytes]]], cache: JsonlCache | None
) -> list[RubricVerdict]:
    """Verdicts in order: cached ones from the cache, the rest from the endpoint, each cached as it arrives.

    An endpoint failure raises `JudgeError` after the requests in flight finish (their verdicts are kept).
    """
    out: list[RubricVerdict | None] = [None] * len(items)
    keys = [judge.key(d, imgs) for d, imgs in items]
    todo = []
    for n, k in enumerate(keys):
        hit = cache.get(k) if cache is not None else None
        if hit is not None:
            out[n] = RubricVerdict(
                hit.get("scores"),
                str(hit.get("reason", "")),
                judge.id,
                cached=True,
                images=int(hit.get("images", 0)),
                images_refused=bool(hit.get("images_refused")),
            )
        else:
            todo.append(n)

    stop = threading.Event()

    def one(n: int) -> None:
        if stop.is_set():
            return  # the endpoint failed: no new request
        try:
            v = judge.ask(*items[n])
        except JudgeError:
            stop.set()
            raise
        v.judge = judge.id
        out[n] = v
        if cache is not None:
            cache.put(
                keys[n],
                {
                    "scores": v.scores,
                    "reason": v.reason,
                    "judge": judge.id,
                    "images": v.images,
                    "images_refused": v.images_refused,
                },
            )

    failure: JudgeError | None = None
    with ThreadPoolExecutor(max_workers=max(1, judge.concurrency)) as pool:
        for fut in [pool.submit(one, n) for n in todo]:
            try:
                fut.result()
            except JudgeError as e:
                failure = failure or e
    if failure is not None:
        raise failure
    return [v for v in out if v is not None]


def summary(clips: Sequence[ClipScore]) -> dict[str, Any]:
    """Mean of each dimension per category and overall over the clips the judge scored."""
    groups: dict[str, list[dict[str, Any]]] = {"overall": []}
    for c in clips:
        r = c.rubric
        if r.get("verdict") == "scored" and c.inp.event is not None:
            groups["overall"].append(r)
            groups.setdefault(c.inp.event.category.value, []).append(r)
    out: dict[str, Any] = {}
    for name, rows in groups.items():
        means = {d: round(sum(int(r[d]) for r in rows) / len(rows), 3) if rows else None for d in DIMENSIONS}
        total = [sum(means[d] or 0 for d in DIMENSIONS) / len(DIMENSIONS)] if rows else [None]
        out[name] = {"n": len(rows), **means, "mean": round(total[0], 3) if total[0] is not None else None}
    return out


def make_rubric_judge(spec: str, options: dict[str, Any]) -> RubricJudge | None:
    """The rubric judge for `--judge`; None for 'offline' (the rubric has no offline judge)."""
    if spec == "offline":
        return None
    from floorbench.scoring.judges import make_judge
    from floorbench.scoring.judges.llm import LLMJudge

    llm = make_judge(spec, **dict(options))
    if not isinstance(llm, LLMJudge):
        raise JudgeError(f"the av rubric needs an LLM judge, not '{spec}'; use --judge llm:<model>")
    return RubricJudge(llm)


def judge_clips(clips: Sequence[ClipScore], opts: AvScoreOptions, cache_dir: Path) -> dict[str, Any]:
    """Fill every clip's `rubric` and return the rubric section of av_scores.json."""
    judge = make_rubric_judge(opts.judge, opts.judge_options)
    items = [_item(c) for c in clips]
    for c, (data, _) in zip(clips, items, strict=True):
        c.payload = data  # stored with the clip: the payload a person labels for judge-agreement
    if judge is None:
        for c in clips:
            c.rubric = {"judged": False, "reason": NOT_CONFIGURED}
        return {"judged": False, "reason": NOT_CONFIGURED, "judge": {"id": None}}
    try:
        verdicts = judge_rubric(judge, items, JsonlCache(cache_dir / "av_rubric.jsonl"))
    except JudgeError as e:
        why = f"not judged: {e}"
        for c in clips:
            c.rubric = {"judged": False, "reason": why}
        return {"judged": False, "reason": why, "judge": judge.settings()}
    for c, v in zip(clips, verdicts, strict=True):
        c.rubric = v.as_row()
    unparsable = sum(v.scores is None for v in verdicts)
    return {
        "judged": True,
        "judge": judge.settings(),
        "unparsable": unparsable,
        "by_category": summary(clips),
    }


def _item(clip: ClipScore) -> tuple[dict[str, Any], list[bytes]]:
    """One clip's payload and the model-video frames sampled over its window."""
    from floorbench.suites.av.frames import model_track, sample_times, sampled, video_tracks

    assert clip.inp.window is not None
    tracks = video_tracks(clip.inp.folder, clip.inp.t0_ms) if clip.inp.t0_ms is not None else []
    frames = sampled(model_track(tracks), sample_times(clip.inp.window, FRAMES))
    return payload(clip, len(frames)), [f for _, f in frames]
