"""The one reader of users' files (floorbench/readers.py) and the options checked first (floorbench/options.py).

Each bound is tested at its edge, and hypothesis feeds the parsers arbitrary
text: whatever comes in, the only exception out is the reader's one-line
error, never a RecursionError, a constructor error or a hang.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from floorbench.errors import OptionError, one_line
from floorbench.escape import excerpt
from floorbench.options import check_asr, check_number_list, check_output_file
from floorbench.readers import (
    MAX_DEPTH,
    ReadError,
    check_finite_audio,
    compile_regex,
    load_json,
    load_yaml,
    parse_json,
    parse_yaml,
    search,
)

BOMB = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, c in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True))


def test_an_alias_bomb_is_refused_before_it_is_built() -> None:
    t0 = time.monotonic()
    with pytest.raises(ReadError, match="aliases expand to more than"):
        parse_yaml(BOMB + "name: *g\n", "t.yaml")
    assert time.monotonic() - t0 < 2
    assert parse_yaml("a: &x {b: 1}\nc: *x\n", "t.yaml") == {"a": {"b": 1}, "c": {"b": 1}}  # a few aliases are fine


def test_a_key_given_twice_is_refused_with_its_line() -> None:
    with pytest.raises(ReadError, match=r"t\.yaml: the key steps is given twice \(line 3\); keep one"):
        parse_yaml("tests: []\nsteps: [a]\nsteps: [b]\n", "t.yaml")
    assert parse_yaml("base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n", "t.yaml")["other"] == {"x": 1, "y": 2}


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000])
def test_nesting_is_bounded_in_yaml_and_json(depth: int) -> None:
    with pytest.raises(ReadError, match="nest"):  # ours at 64, libyaml's own at 1000
        parse_yaml("a: " + "[" * depth + "]" * depth, "t.yaml")
    with pytest.raises(ReadError, match="nested"):
        parse_json("[" * depth + "]" * depth, "b.json")
    assert parse_json("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1), "b.json") is not None


def test_a_json_nested_100000_deep_is_one_line() -> None:
    with pytest.raises(ReadError, match=r"b\.json: nested too deep"):
        parse_json("[" * 100_000 + "]" * 100_000, "b.json")


@pytest.mark.parametrize("text", ['{"a": NaN}', '{"a": -Infinity}', '{"a": 1e400}', '{"a": [1, {"b": 1e999}]}'])
def test_json_numbers_are_finite(text: str) -> None:
    with pytest.raises(ReadError, match=r"finite|JSON allows"):
        parse_json(text, "r.json")


def test_yaml_numbers_are_finite_and_named_by_where_they_sit() -> None:
    with pytest.raises(ReadError, match=r"tests\[0\]\.timeout_s: nan is not a finite number"):
        parse_yaml("tests:\n  - timeout_s: .nan\n", "t.yaml")


def test_python_tags_are_refused() -> None:
    with pytest.raises(ReadError, match="YAML syntax error"):
        parse_yaml("x: !!python/object/apply:os.system [echo hi]\n", "t.yaml")


def test_files_are_bounded_regular_utf8(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 200 + "\n")
    with pytest.raises(ReadError, match="more than the 100 this reader takes"):
        load_yaml(big, max_bytes=100)
    with pytest.raises(ReadError, match="not a regular file"):
        load_json(tmp_path)
    (tmp_path / "bad.json").write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ReadError, match="not UTF-8 text"):
        load_json(tmp_path / "bad.json")
    with pytest.raises(ReadError, match="file not found"):
        load_yaml(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("pattern", "why"),
    [(r"\d{99999999999}", "repeat count"), ("(" * 3000 + "a" + ")" * 3000, "characters"),
     ("(a)" * 31, "groups"), ("(abc", "not a regular expression"), ("", "give a regular expression"),
     (5, "give a regular expression")],
)
def test_a_regex_from_a_file_is_bounded(pattern: object, why: str) -> None:
    with pytest.raises(ReadError, match=why):
        compile_regex("t.yaml: step 1: matches", pattern)


def test_a_match_has_a_time_limit() -> None:
    assert search(r"h(i|ello)", "Well, HELLO there") is True and search("bye", "hello") is False
    t0 = time.monotonic()
    found = search(r"(\w+\s?)+$", "a " * 5000 + "!")  # backtracks exponentially without a limit
    assert time.monotonic() - t0 < 3 and found in (None, False)


def test_excerpt_is_short_escaped_and_never_walks_a_tree() -> None:
    assert excerpt("a\nb\u202e" + "x" * 500, 20) == "a\\nb\\u202exxxxxxxxx…"
    shared: list[object] = ["lol"] * 9
    for _ in range(30):  # 9**30 leaves if walked
        shared = [shared] * 9
    assert excerpt(shared) == "a list of 9 items"
    assert len(one_line("x" * 10**6)) == 2000


def test_float_audio_must_be_finite(tmp_path: Path) -> None:
    x = np.zeros(16000, np.float32)
    sf.write(str(tmp_path / "ok.wav"), x, 16000, subtype="FLOAT")
    check_finite_audio(tmp_path / "ok.wav", "ok.wav")
    x[100] = np.nan
    sf.write(str(tmp_path / "nan.wav"), x, 16000, subtype="FLOAT")
    with pytest.raises(ReadError, match=r"nan\.wav: holds NaN or infinite samples"):
        check_finite_audio(tmp_path / "nan.wav", "nan.wav")


def test_options_are_checked_before_a_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    check_output_file("--junit", tmp_path / "junit.xml", out)
    check_output_file("--junit", out / "junit.xml", out)  # inside --out: made by the command
    for bad, why in [(tmp_path, "is a folder"), (out / "results.json", "writes"), (out / "run" / "x.xml", "writes"),
                     (tmp_path / "no" / "junit.xml", "does not exist")]:
        with pytest.raises(OptionError, match=why):
            check_output_file("--junit", bad, out)
    check_asr("--asr", "tiny.en")
    check_asr("--asr", "Systran/faster-whisper-tiny")
    check_asr("--asr", str(tmp_path))
    for bad in (str(tmp_path / "nowhere"), "./models/x", "tiny-en-typo"):
        with pytest.raises(OptionError, match="--asr"):
            check_asr("--asr", bad)
    check_number_list("--sessions", "1,2,4")
    with pytest.raises(OptionError, match="empty item"):
        check_number_list("--sessions", "1,,2")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from([*list("[]{}:,&*!-?|>'\"# \n\tab1.<@%\\"), "\u202e", "\x00", "é"]),
               max_size=200))
def test_any_text_is_yaml_or_one_reader_error(text: str) -> None:
    try:
        parse_yaml(text, "t.yaml")
    except ReadError as e:
        assert "\n" not in one_line(e)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from([*list('[]{}:,"0123456789.eE+-\\ \nNaIfinty'), "\u202e", "\x00"]),
               max_size=200))
def test_any_text_is_json_or_one_reader_error(text: str) -> None:
    try:
        parse_json(text, "r.json")
    except ReadError as e:
        assert "\n" not in one_line(e)
