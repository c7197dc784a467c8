"""The LiveKit side of a run: the server and the rooms, nothing about models or scoring.

    server    the pinned LiveKit server: built with `go install`, started on 127.0.0.1
              with a generated config, health-checked, killed with its parent;
              or an existing server / LiveKit Cloud named by URL and credentials
    rooms     room names, participant identities and join tokens (recorder hidden)
    loopback  with a loopback server, the participants' UDP sockets bind on loopback only
              (a bind() interposer, LD_PRELOAD, built from data/native/loopback_bind.c)
"""
