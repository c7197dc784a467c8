"""The systems under test ("models"), as pipecat processors or external participants.

    registry        the one registry: `Model`, `ModelContext`, `@register_model`, create by name
    adapter_config  typed settings (pydantic, unknown keys refused) and their one-line errors
    reference       reference agents: silent, eager, oracle, echo
    cascade*        the local baseline: Silero VAD → faster-whisper → rules or LLM → Piper
    service         any pipecat speech-to-speech service by config (OpenAI Realtime, Gemini Live …)
    duplex_base, duplex_ws, moshi, ogg_opus
                    full-duplex model servers over one WebSocket (raw PCM; Moshi's Ogg/Opus)
    room_audio      routing of room audio frames shared by the cascade and the WebSocket bridges
    external        a system that joins the room by itself (identity or LiveKit agent dispatch)

Processors never import the pipelines that run them; see docs/systems-under-test.md.
"""
