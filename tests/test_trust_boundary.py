"""Test files, suites and dispatch jobs are data: they move no secret (docs/testing.md "In CI").

Canaries are planted in LIVEKIT_API_SECRET, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY and in variables
of generated names; a local HTTP server on 127.0.0.1 captures every request. Test files naming those
variables (``api_key_env``, any ``*_env``) and URLs on that server drive the persona endpoint, the
voice ids and the dispatch worker's settings; the checks assert that no canary leaves: not in a
request, not in the output, not in a file under OUT. The operator's binding (``--persona-url`` with
``--persona-key-env``) is the only way a key reaches an endpoint, and a provider's reply that echoes
it (masked, as providers do) is redacted. Hypothesis generates the variable names and the masked
forms (bounded: the unit phase's budget).

Also here: every cleaner goes through `floorbench.paths.remove_stale` (a link out of OUT is refused
before anything is deleted), and `floorbench test` writes no URL credential into OUT/suite.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from floorbench.cli import app
from floorbench.redact import REDACTED, redact_text

_RUN_TAG = hashlib.sha256(
    (os.environ.get("PYTEST_XDIST_TESTRUNUID") or secrets.token_hex(16)).encode()
).hexdigest()
"""new every run, the same in every xdist worker of one run (they must collect the same parameters)"""
CANARIES = {
    "LIVEKIT_API_SECRET": "lk-canary-secret-5f1e2d3c4b5a",
    "AWS_SECRET_ACCESS_KEY": "aws-canary-wJalrXUtnFEMI-K7MDENG",
    "OPENAI_API_KEY": "sk-canary-openai-0a1b2c3d4e5f6789",
    f"FB_{_RUN_TAG[:8].upper()}_VAR": f"rnd-canary-{_RUN_TAG[8:24]}",  # a name nobody listed
}
OPERATOR_KEY = "sk-operator-abc12ZZZZZZZZZZZZwxyz"
"""the operator's own key, bound on the command line: it may go to the operator's URL, nowhere else"""
ENV_NAMES = st.from_regex(r"[A-Z][A-Z0-9_]{2,30}", fullmatch=True)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


class _Capture(BaseHTTPRequestHandler):
    """Every request, whole; an OpenAI-compatible reply, or (under /deny/) a provider's 401 that echoes the key
    it was given masked to its first 8 and last 4 characters."""

    seen: ClassVar[list[str]] = []

    def _any(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
        type(self).seen.append(f"{self.command} {self.path}\n{self.headers}\n{body}")
        if "/deny/" in self.path:
            key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            masked = f"{key[:8]}{'*' * 20}{key[-4:]}"
            data = json.dumps({"error": {"message": f"Incorrect API key provided: {masked}. You can find your "
                                                    "API key at https://platform.example/account/api-keys."}})
            self.send_response(401)
        else:
            data = json.dumps({"choices": [{"message": {"content": "Five in total, thanks. [DONE]"}}]})
            self.send_response(200)
        raw = data.encode()
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = do_PUT = _any

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def capture() -> Iterator[str]:
    _Capture.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Capture)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def canaries(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FB_OPERATOR_PERSONA_KEY", OPERATOR_KEY)
    for name in ("FLOORBENCH_PERSONA_URL", "FLOORBENCH_PERSONA_KEY", "FLOORBENCH_VOICES"):
        monkeypatch.delenv(name, raising=False)
    return dict(CANARIES)


def _leaks(planted: dict[str, str], *texts: str, out: Path | None = None) -> list[str]:
    found = [f"{name} in {what[:60]!r}" for name, v in planted.items() for what in texts if v in what]
    if out is not None and out.exists():
        found += [f"{name} in {p}" for p in out.rglob("*") if p.is_file()
                  for name, v in planted.items() if v.encode() in p.read_bytes()]
    return found


def _test_file(tmp_path: Path, endpoint: str = "", voice: str = "piper:joe", say: str = "Hello.") -> Path:
    f = tmp_path / "calls.yaml"
    f.write_text(
        f"voice: {json.dumps(voice)}\n"
        "tests:\n  - name: t\n    steps:\n"
        f"      - say: {json.dumps(say)}\n"
        "      - persona:\n          goal: learn the total\n          max_turns: 2\n"
        f"          endpoint: {{{endpoint}}}\n"
    )
    return f


def _floorbench_test(args: list[str]) -> Any:
    return CliRunner().invoke(app, ["test", *args])


# -- a test file names no key variable: refused before anything is rendered or connected ----------------


@pytest.mark.parametrize("var", list(CANARIES))
def test_a_test_file_naming_a_key_variable_is_refused_in_one_line_and_nothing_leaves(
    tmp_path: Path, capture: str, canaries: dict[str, str], var: str
) -> None:
    f = _test_file(tmp_path, f"base_url: {capture}/v1, model: m, api_key_env: {var}")
    out = tmp_path / "out"
    res = _floorbench_test([str(f), "--model", "silent", "--out", str(out)])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), res.output
    assert "'api_key_env': a test file may not name a key" in lines[0] and "--persona-key-env" in lines[0]
    assert not (out / "suite").exists() and _Capture.seen == []  # before anything is written or connected
    assert not _leaks(canaries, res.output, out=out)


@SETTINGS
@given(name=ENV_NAMES, field=st.sampled_from(["api_key_env", "key_env", "token_env", "env", "api_key", "token",
                                               "secret", "headers", "password", "authorization"]))
def test_any_key_ish_field_of_a_persona_endpoint_is_refused_without_echoing_its_value(
    tmp_path: Path, name: str, field: str
) -> None:
    from floorbench.suites.agent.validate import AgentTestError, load_test_file

    f = _test_file(tmp_path, f"base_url: http://127.0.0.1:9/v1, {field}: {name}")
    with pytest.raises(AgentTestError) as e:
        load_test_file(f)
    msg = str(e.value)
    assert "\n" not in msg and "may not name a key" in msg and f"{name}" not in msg.replace(field, ""), msg


@pytest.mark.parametrize("url", ["http://user:pw-canary-1@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?key=pw-canary-1",
                                 "http://127.0.0.1:9/v1#pw-canary-1"])
def test_a_persona_url_with_credentials_in_a_file_is_refused_redacted(tmp_path: Path, url: str) -> None:
    from floorbench.suites.agent.validate import AgentTestError, load_test_file

    with pytest.raises(AgentTestError) as e:
        load_test_file(_test_file(tmp_path, f"base_url: '{url}'"))
    assert "carries credentials" in str(e.value) and "pw-canary-1" not in str(e.value)


def test_the_file_default_endpoint_is_data_too(tmp_path: Path) -> None:
    from floorbench.suites.agent.validate import AgentTestError, load_test_file

    f = tmp_path / "calls.yaml"
    f.write_text("persona_endpoint: {base_url: 'http://127.0.0.1:9/v1', api_key_env: AWS_SECRET_ACCESS_KEY}\n"
                 "tests:\n  - name: t\n    steps:\n      - persona: {goal: g}\n")
    with pytest.raises(AgentTestError, match=r"persona_endpoint: 'api_key_env': a test file may not name a key"):
        load_test_file(f)


def test_a_suite_file_naming_a_key_variable_is_refused(tmp_path: Path) -> None:
    """A hand-edited OUT/suite scenario is data as well: its persona endpoint has no key field."""
    import yaml

    from floorbench.scenarios.validate import ScenarioError, load_suite
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.suites.agent.validate import load_test_file

    suite = tmp_path / "suite"
    (s,) = write_test_suite(load_test_file(_test_file(tmp_path, "base_url: http://127.0.0.1:9/v1")), suite, 1)
    path = suite / "scenarios" / f"{s.scenario_id}.yaml"
    data = yaml.safe_load(path.read_text())
    data["steps"][1]["persona"]["endpoint"]["api_key_env"] = "AWS_SECRET_ACCESS_KEY"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError) as e:
        load_suite(suite)
    assert "api_key_env" in str(e.value) and "\n" not in str(e.value).strip()


# -- the operator's binding: the only way a key reaches an endpoint ---------------------------------------


def _ask(brain: Any) -> str | Exception:
    async def go() -> str:
        return await brain.reply([{"role": "user", "content": "hi"}])

    try:
        return asyncio.run(go())
    except Exception as e:  # the error itself is checked
        return e


def test_without_a_binding_the_files_endpoint_is_asked_with_no_key(
    tmp_path: Path, capture: str, canaries: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.suites.agent.schedule import _personas
    from floorbench.suites.agent.validate import load_test_file

    monkeypatch.setenv("FLOORBENCH_PERSONA_KEY", CANARIES["OPENAI_API_KEY"])  # no URL bound: never sent
    (s,) = write_test_suite(load_test_file(_test_file(tmp_path, f"base_url: {capture}/v1")), tmp_path / "suite", 1)
    ((brain, _),) = _personas(s, {}).values()
    assert _ask(brain) == "Five in total, thanks. [DONE]"
    assert len(_Capture.seen) == 1 and "authorization" not in _Capture.seen[0].lower()
    assert not _leaks(canaries, *_Capture.seen, out=tmp_path / "suite")


def test_the_operators_key_goes_to_the_operators_url_only_and_its_echo_is_redacted(
    tmp_path: Path, capture: str, canaries: dict[str, str]
) -> None:
    from floorbench.suites.agent.commands import persona_binding
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.suites.agent.schedule import _personas
    from floorbench.suites.agent.validate import load_test_file

    binding = persona_binding(f"{capture}/deny/v1", "FB_OPERATOR_PERSONA_KEY")
    (s,) = write_test_suite(load_test_file(_test_file(tmp_path, "base_url: http://127.0.0.1:9/file/v1")),
                            tmp_path / "suite", 1)
    ((brain, _),) = _personas(s, binding.options()).values()
    err = _ask(brain)
    assert isinstance(err, Exception) and "answered HTTP 401" in str(err), err
    assert len(_Capture.seen) == 1 and _Capture.seen[0].startswith("POST /deny/v1/chat/completions")
    assert f"Bearer {OPERATOR_KEY}" in _Capture.seen[0]  # the operator's key, to the operator's URL
    said = str(err)
    assert OPERATOR_KEY[:8] not in said and OPERATOR_KEY[-4:] + "." not in said and REDACTED in said, said
    card = json.dumps(brain.card())
    assert OPERATOR_KEY not in card and "FB_OPERATOR_PERSONA_KEY" in card
    assert not _leaks(canaries, *_Capture.seen, said, card)


@pytest.mark.parametrize(("args", "said"), [
    (["--persona-key-env", "AWS_SECRET_ACCESS_KEY"], "--persona-key-env needs --persona-url"),
    (["--persona-url", "gopher://127.0.0.1/v1"], "give an http(s) URL"),
    (["--persona-url", "http://127.0.0.1:9/v1", "--persona-key-env", "FB_NOT_SET_ANYWHERE"], "is not set"),
    (["--persona-url", "http://127.0.0.1:9/v1", "--persona-key-env", "sk-canary-openai-0a1b2c3d4e5f6789"],
     "must be the NAME of an environment variable"),
    ([], "FLOORBENCH_PERSONA_URL 'gopher://<redacted>@127.0.0.1/v1': give an http(s) URL"),
])
def test_the_binding_options_are_checked_before_anything_runs(
    tmp_path: Path, canaries: dict[str, str], monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    monkeypatch.delenv("FB_NOT_SET_ANYWHERE", raising=False)
    if not args:  # the operator's environment is checked the same way
        monkeypatch.setenv("FLOORBENCH_PERSONA_URL", "gopher://u:pw-canary-4@127.0.0.1/v1")
    f = _test_file(tmp_path, "base_url: http://127.0.0.1:9/v1")
    out = tmp_path / "out"
    res = _floorbench_test([str(f), "--model", "silent", "--out", str(out), *args])
    assert res.exit_code == 2 and said in res.output and res.output.count("\n") == 1, res.output
    assert not out.exists() and not _leaks(canaries, res.output)


# -- voice ids: a closed registry ---------------------------------------------------------------------------


@pytest.mark.parametrize("var", list(CANARIES))
def test_a_voice_id_that_would_import_a_module_and_send_a_key_is_refused_before_rendering(
    tmp_path: Path, capture: str, canaries: dict[str, str], var: str
) -> None:
    voice = (f"pipecat:pipecat.services.openai.tts:OpenAITTSService?base_url=http://u:pw-canary-2@127.0.0.1:"
             f"{capture.rsplit(':', 1)[1]}/v1&api_key_env={var}")
    f = _test_file(tmp_path, "base_url: http://127.0.0.1:9/v1", voice=voice)
    out = tmp_path / "out"
    res = _floorbench_test([str(f), "--model", "silent", "--out", str(out)])
    assert res.exit_code == 2 and "may not name a module to import" in res.output, res.output
    assert _Capture.seen == [] and not (out / "suite").exists()
    assert not _leaks({**canaries, "url password": "pw-canary-2"}, res.output, out=out)


@settings(max_examples=80, deadline=None)
@given(backend=st.sampled_from(["pipecat", "service", "piper", "flite", "festival", "espeak", "sk-canary-9f8e7d6c"]),
       name=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40),
       query=st.lists(st.tuples(st.sampled_from(["api_key_env", "base_url", "api_key", "voice", "length_scale",
                                                  "x"]),
                                st.sampled_from(["sk-canary-9f8e7d6c", "http://u:pw-canary-5@127.0.0.1:9/v1",
                                                 "OPENAI_API_KEY", "1.1", "alloy"])), max_size=3))
def test_any_voice_id_is_a_local_voice_or_a_name_never_an_import_path(backend: str, name: str,
                                                                      query: list[tuple[str, str]]) -> None:
    from floorbench.speech.tts import BACKENDS, TTSError, parse_voice
    from floorbench.speech.tts_voices import NAME_RE

    voice = f"{backend}:{name}" + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")
    try:
        spec = parse_voice(voice)
    except TTSError as e:
        msg = str(e)
        assert "\n" not in msg and "sk-canary-9f8e7d6c" not in msg and "pw-canary-5" not in msg, msg
        return
    assert spec.backend in BACKENDS and spec.backend != "pipecat"
    assert all(k == "length_scale" and float(v) for k, v in spec.params), spec
    if spec.backend == "service":
        assert NAME_RE.fullmatch(spec.name) and not spec.params


def test_a_service_voice_is_only_a_name_its_endpoint_and_key_are_the_operators(
    tmp_path: Path, capture: str, canaries: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from floorbench.speech import tts

    voices = tmp_path / "voices.yaml"
    voices.write_text(f"house:\n  service: pipecat.services.openai.tts:OpenAITTSService\n"
                      f"  params: {{base_url: '{capture}/v1'}}\n  api_key_env: FB_OPERATOR_PERSONA_KEY\n")
    f = _test_file(tmp_path, "base_url: http://127.0.0.1:9/v1", voice="service:house?api_key_env=OPENAI_API_KEY")
    res = _floorbench_test([str(f), "--model", "silent", "--out", str(tmp_path / "out"), "--voices", str(voices)])
    assert res.exit_code == 2 and "a service voice is named service:NAME" in res.output, res.output
    monkeypatch.setenv("FLOORBENCH_VOICES", str(voices))
    cfg = tts.pipecat_voice_config("service:house")
    assert cfg.api_key_env == "FB_OPERATOR_PERSONA_KEY" and cfg.kwargs == {"base_url": f"{capture}/v1"}
    assert _Capture.seen == [] and not _leaks(canaries, res.output, out=tmp_path / "out")


def test_render_takes_the_operators_voices_file_and_checks_it_first(tmp_path: Path) -> None:
    bad = tmp_path / "voices.yaml"
    bad.write_text("alloy: {service: 'os:system', params: {api_key: sk-canary-render-77}}\n")
    res = CliRunner().invoke(app, ["render", str(tmp_path / "no-suite"), "--voices", str(bad)])
    assert res.exit_code == 2 and "service must be a pipecat TTS service" in res.output, res.output
    assert "sk-canary-render-77" not in res.output


# -- dispatch: a job's settings never choose an endpoint or a key ------------------------------------------


@SETTINGS
@given(var=st.one_of(st.sampled_from(list(CANARIES)), ENV_NAMES),
       option=st.sampled_from(["persona_url", "persona_key_env", "llm_url", "api_key_env", "judge_base_url",
                               "headers", "token"]))
def test_a_job_naming_an_endpoint_or_a_key_variable_is_refused_and_writes_nothing(
    tmp_path_factory: pytest.TempPathFactory, var: str, option: str
) -> None:
    from floorbench.pipelines.dispatch.protocol import JobSpec
    from floorbench.pipelines.dispatch.worker import Pins

    root = tmp_path_factory.mktemp("runs")
    (root / "full").mkdir()
    value = "http://127.0.0.1:9/v1" if option.endswith("url") else var
    pins = Pins.of(root, "silent", {}, None, {"persona_url": "http://127.0.0.1:8/v1"}, 600)
    spec = JobSpec(suite="tiny", suite_hash="h", scenario_id="x", model="silent", out=str(root / "full"),
                   run_id="r", token="0123456789abcdef", settings={"schedule": {"rules": {option: value}}})
    why = pins.why_not(spec)
    assert why is not None and "is not a job's to set" in why and "\n" not in why and var not in why.replace(option, "")
    assert list((root / "full").iterdir()) == []


# -- redaction: masked keys as providers echo them ----------------------------------------------------------

KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@settings(max_examples=60, deadline=None)
@given(prefix=st.sampled_from(["sk-", "sk-proj-", "sk-ant-api03-", "", "AKIA", "ghp_", "key-"]),
       head=st.text(KEY_CHARS, min_size=4, max_size=8), tail=st.text(KEY_CHARS, min_size=4, max_size=4),
       mask=st.sampled_from(["*", "•", "x", "●"]), n=st.integers(3, 40), dots=st.sampled_from(["", "...", "…"]),
       before=st.sampled_from(["Incorrect API key provided: ", "invalid key ", "401: key=", "(", "'", "api_key:",
                               "key: "]),
       after=st.sampled_from([".", "", " was rejected", ")", "'", ". See https://x.example/keys."]))
def test_a_masked_key_in_any_providers_form_is_redacted(prefix: str, head: str, tail: str, mask: str, n: int,
                                                        dots: str, before: str, after: str) -> None:
    head = head[:-1] + "7"  # a key's visible part holds a digit, as real ones do
    masked = f"{prefix}{head}{mask * n if not dots else dots}{tail}" if dots else f"{prefix}{head}{mask * n}{tail}"
    text = f"{before}{masked}{after}"
    out = redact_text(text)
    assert masked not in out and f"{prefix}{head}" not in out and REDACTED in out, (text, out)


@pytest.mark.parametrize("prose", ["Loading... done", "wait...what now", "a **bold** word", "the xxxx placeholder",
                                   "max_tokens: 512", "rules: basic", "version 1.2.3 of sklearn"])
def test_prose_is_not_taken_for_a_masked_key(prose: str) -> None:
    assert redact_text(prose) == prose


def test_url_credentials_never_reach_the_suite_under_out(tmp_path: Path) -> None:
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.suites.agent.validate import load_test_file

    f = _test_file(tmp_path, "base_url: http://127.0.0.1:9/v1", say="see http://ann:pw-canary-3@h.example/x now")
    write_test_suite(load_test_file(f), tmp_path / "out" / "suite", 1)
    written = [p for p in (tmp_path / "out").rglob("*.yaml")]
    assert written and not any(b"pw-canary-3" in p.read_bytes() for p in written)


# -- deletes: one cleaner, confined to the folder it was given ---------------------------------------------


def test_floorbench_test_with_a_linked_suite_folder_deletes_nothing_outside_out(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "scenarios").mkdir(parents=True)
    keep = [elsewhere / "scenarios" / "precious.yaml", elsewhere / "suite.yaml"]
    for p in keep:
        p.write_text("mine: true\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "suite").symlink_to(elsewhere)
    f = _test_file(tmp_path, "base_url: http://127.0.0.1:9/v1")
    res = _floorbench_test([str(f), "--model", "silent", "--out", str(out)])
    assert res.exit_code == 2 and "suite/" in res.output and "leads outside" in res.output, res.output
    assert all(p.read_text() == "mine: true\n" for p in keep) and sorted(elsewhere.rglob("*")) == sorted(
        [elsewhere / "scenarios", *keep])


def test_a_linked_scenarios_folder_is_refused_before_anything_is_deleted(tmp_path: Path) -> None:
    from floorbench.suites.agent.importer import write_test_suite
    from floorbench.suites.agent.validate import AgentTestError, load_test_file

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "old.yaml").write_text("mine: true\n")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "scenarios").symlink_to(elsewhere)
    with pytest.raises(AgentTestError, match="leads outside"):
        write_test_suite(load_test_file(_test_file(tmp_path, "base_url: http://127.0.0.1:9/v1")), suite, 1)
    assert (elsewhere / "old.yaml").read_text() == "mine: true\n"


def test_remove_stale_removes_links_as_links_and_keeps_folders(tmp_path: Path) -> None:
    from floorbench.paths import PathEscapeError, remove_stale

    target = tmp_path / "target.yaml"
    target.write_text("x")
    d = tmp_path / "root" / "sub"
    d.mkdir(parents=True)
    (d / "a.yaml").write_text("a")
    (d / "keep.yaml").write_text("k")
    (d / "link.yaml").symlink_to(target)
    (d / "folder.yaml").mkdir()
    gone = remove_stale(tmp_path / "root", "sub", lambda n: n.endswith(".yaml") and n != "keep.yaml")
    assert gone == 2 and target.read_text() == "x"
    assert sorted(p.name for p in d.iterdir()) == ["folder.yaml", "keep.yaml"]
    (tmp_path / "root" / "out").symlink_to(tmp_path)
    with pytest.raises(PathEscapeError):
        remove_stale(tmp_path / "root", "out", lambda n: True)
    assert target.exists()
