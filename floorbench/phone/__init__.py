"""The phone leg: a SIP user agent that carries a room's audio to an agent over SIP/RTP and back.

Production voice agents answer phone calls, and the phone line changes what
floorbench measures (8 kHz G.711, the gateway's jitter buffer, call set-up and
hang-up, DTMF). `stack` runs one PJSIP endpoint (pjsua2) per process in a
thread of its own; `leg` is the `sip` model that joins a room as the phone
line and calls the agent (``--via sip:URI``); `agent` is a plain SIP endpoint
in auto-answer that runs floorbench's reference agents, so the path can be
tested on loopback without a carrier. See docs/phone.md.
"""
