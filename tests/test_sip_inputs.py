"""Bad input to the phone leg: each is one ``error:`` line naming the fix, exit 2, no traceback, no secret.

A malformed or remote URI, ``--via`` mixed with ``--model``, a codec the leg
does not offer, half a set of credentials, a missing SIP stack, a bad
``phone-agent --answer``; and how an unanswered call's SIP status becomes the
phone's failure kind. No network, no SIP stack started.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import pytest

from floorbench.phone.leg import failure
from floorbench.phone.uri import PhoneError, codec_names, credentials, parse_target, shown
from tests.support.cli_lines import one_error_line

_one_line = one_error_line


@pytest.mark.parametrize("uri", ["sip:", "sip:agent@", "sip:agent@127.0.0.1:99999", "sip:a b@127.0.0.1",
                                 "http://127.0.0.1:5070", "sips:agent@127.0.0.1"])
def test_a_malformed_uri_is_one_line_on_every_command(capsys, tmp_path, uri):
    for cmd in (["run", "--suite", "example"], ["test", "examples/tests/basic.yaml"], ["load", "examples/tests"]):
        line = _one_line(capsys, [*cmd, "--out", str(tmp_path / "out"), "--via", uri])
        assert "--via" in line and "sip:" in line, line
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_the_uri_reader():
    t = parse_target("sip:agent@127.0.0.1:5070")
    assert (t.user, t.host, t.port, t.loopback) == ("agent", "127.0.0.1", 5070, True)
    assert parse_target("sip:localhost").port == 5060
    assert parse_target("sip:[::1]:5070").loopback
    with pytest.raises(PhoneError, match=r"not on this machine.*allow_remote"):
        parse_target("sip:agent@192.0.2.7")
    assert not parse_target("sip:agent@192.0.2.7", allow_remote=True).loopback


def test_a_password_in_the_uri_is_never_shown(capsys, tmp_path):
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path), "--via",
                              "sip:agent:hunter2secret@127.0.0.1"])
    assert "hunter2secret" not in line and "<redacted>" in line
    assert "hunter2secret" not in shown("sip:agent:hunter2secret@127.0.0.1:5070")


def test_via_with_a_model_names_the_mix(capsys, tmp_path):
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path), "--model", "oracle",
                              "--via", "sip:agent@127.0.0.1:5070"])
    assert "leave out --model oracle" in line and "phone-agent" in line


def test_a_remote_address_needs_the_config(capsys, tmp_path):
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path), "--via", "sip:agent@192.0.2.7"])
    assert "not on this machine" in line and "allow_remote" in line


def test_a_codec_the_leg_does_not_offer_names_the_choices(capsys, tmp_path):
    cfg = tmp_path / "phone.yaml"
    cfg.write_text("adapter: sip\nuri: sip:agent@127.0.0.1:5070\ncodecs: [opus]\n")
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path / "o"), "--config", str(cfg)])
    assert str(cfg) in line and "'opus'" in line and "PCMU, PCMA, G722" in line
    assert codec_names(["ulaw", "G722", "pcmu", "alaw"]) == ["PCMU", "G722", "PCMA"]


def test_credentials_come_in_pairs_from_the_environment(monkeypatch):
    monkeypatch.delenv("FLOORBENCH_SIP_USER", raising=False)
    monkeypatch.delenv("FLOORBENCH_SIP_PASSWORD", raising=False)
    assert credentials() is None
    monkeypatch.setenv("FLOORBENCH_SIP_USER", "caller")
    with pytest.raises(PhoneError, match="FLOORBENCH_SIP_PASSWORD is not set"):
        credentials()
    monkeypatch.setenv("FLOORBENCH_SIP_PASSWORD", "pw-canary-77")
    assert credentials() == ("caller", "pw-canary-77")


def test_a_missing_sip_stack_is_one_line_naming_the_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pjsua2", None)  # import pjsua2 now fails as when it is not installed
    line = _one_line(capsys, ["phone-agent", "--port", "0"])
    assert "SIP stack is missing" in line and "pip install pjsua2-python" in line and "setup.sh" in line


def test_phone_agent_options(capsys):
    assert "drop:SECONDS" in _one_line(capsys, ["phone-agent", "--answer", "hangup"])
    assert "drop:SECONDS" in _one_line(capsys, ["phone-agent", "--answer", "drop:x"])
    assert "phone-agent runs oracle" in _one_line(capsys, ["phone-agent", "--model", "cascade"])
    assert "G.711" in _one_line(capsys, ["phone-agent", "--codecs", "opus"])


@pytest.mark.parametrize(("status", "kind"), [
    (486, "busy"), (600, "busy"), (603, "declined"), (403, "declined"), (488, "codec_refused"), (408, "no_answer"),
    (480, "no_answer"), (None, "no_answer"), (180, "no_answer"), (500, "refused"), (407, "declined"),
])
def test_an_unanswered_calls_status_is_its_kind(status, kind):
    got, line = failure(status, "Reason", "sip:agent@127.0.0.1", ["PCMU"])
    assert got == kind
    assert "sip:agent@127.0.0.1" in line and ";" in line  # what happened; the fix


def test_the_agent_end_reads_only_floorbench_headers_of_the_invite():
    from floorbench.phone.stack import _x_headers

    invite = ("INVITE sip:agent@127.0.0.1:5070 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:40000\r\n"
              "X-Floorbench-Suite: /tmp/run/suite\r\nX-Floorbench-Scenario: greeting.t1\r\nX-Other: 1\r\n"
              "Content-Type: application/sdp\r\n\r\nv=0\r\nX-Floorbench-Scenario: not-a-header\r\n")
    assert _x_headers(invite) == {"x-floorbench-suite": "/tmp/run/suite", "x-floorbench-scenario": "greeting.t1"}


def test_the_scenario_headers_go_only_to_a_loopback_agent(tmp_path):
    from floorbench.phone.leg import PhoneLeg, SipModel
    from floorbench.processors.registry import ModelContext

    scenario: Any = SimpleNamespace(scenario_id="greeting.t1")  # all the leg reads of the scenario
    local = SipModel(ModelContext(name="sip", config={"uri": "sip:agent@127.0.0.1:5070"}, scenario=scenario,
                                  suite_root=tmp_path))
    remote = SipModel(ModelContext(name="sip", config={"uri": "sip:agent@192.0.2.7", "allow_remote": True},
                                   scenario=scenario, suite_root=tmp_path))
    (near,), (far,) = local.processors(), remote.processors()
    assert isinstance(near, PhoneLeg) and isinstance(far, PhoneLeg)
    assert near.call.headers == {"X-Floorbench-Suite": str(tmp_path.resolve()), "X-Floorbench-Scenario": "greeting.t1"}
    assert far.call.headers == {}
    assert remote.card()["protocol"] == "sip/rtp" and remote.card()["endpoint"] == "sip:agent@192.0.2.7"


def test_the_record_says_which_clock_timed_the_agent_and_whether_the_peer_sent_rtcp():
    from floorbench.phone.leg import agent_clock

    assert agent_clock({"rtt_ms": 0.4}).startswith("receiver: ") and "RTT 0.4 ms" in agent_clock({"rtt_ms": 0.4})
    assert "sent no RTCP report" in agent_clock({"rtt_ms": None}) and "sent no RTCP" in agent_clock({})


def test_the_legs_bind_address_is_checked(capsys, tmp_path):
    cfg = tmp_path / "phone.yaml"
    cfg.write_text("adapter: sip\nuri: sip:agent@127.0.0.1:5070\nbind: my-laptop\n")
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path / "o"), "--config", str(cfg)])
    assert str(cfg) in line and "bind" in line and "IP address" in line


@pytest.mark.parametrize("acoustics,fix", [("phone", "leave out --acoustics"), ("cafe+phone", "use --acoustics cafe")])
def test_the_phone_stand_in_is_refused_over_a_phone_leg(capsys, tmp_path, acoustics, fix):
    # the leg's codec is the line: the stand-in's band-pass and µ-law on top would code the caller twice
    for cmd in (["run", "--suite", "example"], ["test", "examples/tests/basic.yaml"]):
        line = _one_line(capsys, [*cmd, "--out", str(tmp_path / "out"), "--via", "sip:agent@127.0.0.1:5070",
                                  "--acoustics", acoustics])
        assert "--via sip:" in line and "G.711" in line and fix in line, line
    assert not (tmp_path / "out").exists()


def test_other_conditions_stay_on_a_phone_leg_and_phone_stays_without_one():
    from floorbench.phone.commands import phone_twice
    from floorbench.pipelines.commands import acoustics_profile

    assert acoustics_profile("white+snr10", 1, "sip:agent@127.0.0.1:5070").phone is False
    assert acoustics_profile("phone", 1, None).phone is True
    assert "use --acoustics room_office+babble" in phone_twice("room_office+phone+babble")


def test_rtp_loss_out_of_range_is_one_line_naming_the_key(capsys, tmp_path):
    cfg = tmp_path / "lossy.yaml"
    cfg.write_text("adapter: sip\nrtp_loss_from_agent_pct: 80\n")
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path / "out"), "--via",
                              "sip:agent@127.0.0.1:5070", "--config", str(cfg)])
    assert "rtp_loss_from_agent_pct" in line and "50" in line and str(cfg) in line, line


@pytest.mark.parametrize(("profile", "words"), [
    ("{delay_ms: 10, jitter_ms: 30}", ["`rtp_jitter_to_agent`", "jitter_ms 30 above delay_ms 10"]),
    ("{delay_ms: 5000}", ["`rtp_jitter_to_agent.delay_ms`", "1000"]),
    ("{spread_ms: 5}", ["`rtp_jitter_to_agent.spread_ms`", "delay_ms, jitter_ms"]),
])
def test_a_bad_rtp_jitter_profile_is_one_line_naming_the_key(capsys, tmp_path, profile, words):
    cfg = tmp_path / "jittery.yaml"
    cfg.write_text(f"adapter: sip\nrtp_jitter_to_agent: {profile}\n")
    line = _one_line(capsys, ["run", "--suite", "example", "--out", str(tmp_path / "out"), "--via",
                              "sip:agent@127.0.0.1:5070", "--config", str(cfg)])
    assert all(w in line for w in words) and str(cfg) in line, line
