"""The live run: participants in a LiveKit room, the schedule, the run loop, the records.

    participant        the base of every floorbench participant: room, connect, typed events, teardown
    recorder           hidden, subscribe-only; every track to disk with a sample-accurate time fit
    playback           the simulated humans' track (one writer task) and what the model says back
    speech_monitor     live Silero on the model audio as received: the schedule's "speaking"
    schedules          each suite's live policy (`mpe`), typed against small protocols
    model_messages     the typed messages between the runner and the model child process
    model_participant  the child process: LiveKitTransport → model processors → LiveKitTransport
    scenario_run       one scenario, one room: joins, schedule, teardown, meta.json and turns.json
    turn_mapping       pure arithmetic of the records: turn times, transport latency, onset error, drift
    timing_verdict     each scenario's own timing check: `ok` or `degraded`, with figures and bounds
    resume             what a run folder already holds, what is left to run, what is retried
    run_book           run.json: the run's identity, every planned scenario's outcome, the counts
    runner             a suite, scenario after scenario, into one run folder
    commands           `floorbench server`, `run`, `models`

Layer: may import everything below it (base, scenarios, transports, processors), never
scoring or report; see docs/architecture.md.
"""
