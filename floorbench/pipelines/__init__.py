"""The live run: participants in a LiveKit room, the schedule, the run loop, the records.

    room/      the room's participants: the base participant, recorder, playback, speech monitor,
               the live schedule's protocol, the model's child process and its messages, sender logs
    run/       the run loop and its records: `runner` (a suite into one run folder), `scenario_run`
               (one scenario, one room; with `run_state`, `run_model`, `run_watch`, `run_records`),
               `sender_timing`, `hearing` and `sent_tracks` (the timing clock), `turn_mapping`,
               `timing_verdict`, `resume`, `run_book`, `model_process`, `model_fork`, `progress`
    dispatch/  scale-out on LiveKit agent dispatch: the protocol, the runner's side, `floorbench worker`
    demo/      `floorbench demo` and `floorbench devices`: this machine's microphone and speakers
    video/     video in the room: the user's camera, the recorder's video, markers, timing
    latency/   `floorbench latency`: chirp probes through the SFU and the sound devices' share
    commands   `floorbench server`, `run`, `models`
    command_support  what the command modules share: `fail` (one error line, exit 2), the server's
               wait, reading a model config file

Layer: may import everything below it (base, scenarios, transports, processors), never
scoring or report; see docs/architecture.md.
"""
