"""The model's side of a room's set-up: its process started, or an outside agent invited, until it is heard.

Part of `ScenarioRun` (floorbench.pipelines.run.scenario_run; state in `run_state`).
A pipeline model runs in a child process of its own (`ModelProcess`, from the
spec built here); a model that joins by itself is dispatched (a LiveKit Agents
worker) or told how to join, and waited for in the room.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from floorbench.child_env import absolute_paths
from floorbench.pipelines.room.model_messages import ModelSpec
from floorbench.pipelines.room.recorder import Recorder
from floorbench.pipelines.run.model_process import ModelProcess, ScenarioFailed
from floorbench.pipelines.run.run_watch import RoomWatch
from floorbench.records import FailureKind
from floorbench.transports.rooms import model_token


class ModelJoin(RoomWatch):
    """Start or invite the model, and wait until the recorder hears it."""

    async def _start_model(self, recorder: Recorder) -> None:
        """Start the model and wait until the recorder hears its audio, or invite it and wait until it joins."""
        s = self.settings
        if self.model.joins == "pipeline":
            self.model_proc = ModelProcess(self._model_spec(), self.dir / "model.log",
                                           self.plan.env if self.plan is not None else None)
            await self.model_proc.start(s.model_join_timeout_s)
            # a silent model counts only if it was listening: its server connection is up first
            await self.model_proc.wait_connected(s.model_join_timeout_s)
            await self._until_model_audio(recorder, s.model_join_timeout_s)
            return
        # A participant that joins by itself is waited for in the room, and its audio only once the
        # playback is there too (`_set_up`): a LiveKit Agents `AgentSession` publishes its track only
        # after a user has joined, so waiting for its audio first would wait for ever.
        timeout = self.external_timeout_s = await self._invite_external()
        await self._until_model(recorder.present, timeout, "did not join")

    async def _until_model_audio(self, recorder: Recorder, within_s: float) -> None:
        await self._until_model(recorder.audio_from, within_s, "did not join with audio")
        self.model_identity = next(i for i in sorted(recorder.audio_from) if self.is_model(i))

    async def _until_model(self, seen: set[str], within_s: float, what: str) -> None:
        ident = self.model_identity
        try:
            await self._until(lambda: any(self.is_model(i) for i in seen), within_s, "")
        except ScenarioFailed as e:
            if e.kind != FailureKind.internal:  # the server died meanwhile: that, not "did not join in 60 s"
                raise
            raise ScenarioFailed(
                FailureKind.model_never_joined,
                f"model participant {ident if self.model.joins == 'pipeline' or self.model.config.get('identity') else '(any agent)'!r} "
                f"{what} within {within_s:.0f} s",
            ) from None

    def _model_spec(self) -> ModelSpec:
        s = self.settings
        return ModelSpec(
            url=self.conn.url,
            token=model_token(self.conn, self.room, self.model_identity),
            room=self.room,
            identity=self.model_identity,
            model=self.model.name or self.model.ctx.name,
            config=absolute_paths(self.model.config, Path.cwd()),  # the child runs in the scenario's folder
            suite_root=self.suite.root.resolve(),
            scenario_file=self.suite.files[self.scenario.scenario_id].resolve(),
            in_sample_rate=s.model_in_rate,
            out_sample_rate=s.model_out_rate,
            out_queue_ms=s.model_out_queue_ms,
            parent_pid=os.getpid(),
            max_lifetime_s=self.timeout_s + 120,
            impair=s.impair.spec() if s.impair is not None and s.impair.active else None,
            records_dir=self.dir.resolve(),
            clock_anchor_ns=self.clock.anchor.monotonic_ns,
        )

    async def _invite_external(self) -> float:
        """Dispatch the agent or print how to join; the join timeout to use."""
        s = self.settings
        ident = self.model_identity
        timeout = float(self.model.config.get("join_timeout_s", s.model_join_timeout_s))
        dispatch = self.model.config.get("dispatch")
        if dispatch:
            await self._dispatch(str(dispatch))
        if s.print_join or not dispatch:
            print(
                f"room {self.room} at {self.conn.url}; join as {ident!r} with token:\n"
                f"{model_token(self.conn, self.room, ident)}"
                + "".join(f"\n{k}={v}" for k, v in (self.plan.env if self.plan is not None else {}).items()),
                file=sys.stderr,
                flush=True,
            )
        return timeout

    async def _dispatch(self, agent_name: str) -> None:
        from livekit import api

        lk = api.LiveKitAPI(self.conn.http_url, self.conn.api_key, self.conn.api_secret)
        try:
            await lk.agent_dispatch.create_dispatch(
                api.CreateAgentDispatchRequest(
                    agent_name=agent_name,
                    room=self.room,
                    metadata=self._dispatch_metadata(),
                )
            )
        finally:
            await lk.aclose()

    def _dispatch_metadata(self) -> str:
        """The model's dispatch metadata, with what the plan tells the model (``tools_url``, ``mcp_url``)."""
        import json

        text = self.model.dispatch_metadata(self.room, self.scenario.scenario_id)
        told = {k.removeprefix("FLOORBENCH_").lower(): v for k, v in (self.plan.env if self.plan else {}).items()}
        return json.dumps({**json.loads(text), **told}) if told else text
